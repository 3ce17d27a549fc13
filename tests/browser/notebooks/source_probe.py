SECRET = "py-source-must-not-be-served"
