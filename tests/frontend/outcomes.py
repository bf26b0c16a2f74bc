"""outcome: what a call gives, a value or the type of the exception it
raises (the exception's type is part of Python's result)."""


def outcome(f, *args):
    try:
        return ("ok", f(*args))
    except Exception as e:
        return ("raise", type(e))
