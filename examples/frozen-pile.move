take 7 JK
