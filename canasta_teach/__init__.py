"""canasta-teach: the Canasta school that lives in Jupyter."""

__version__ = "0.1.0"
