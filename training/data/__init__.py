"""The data engine: renderers whose layout we can read, writing screenshots with exact element labels."""
