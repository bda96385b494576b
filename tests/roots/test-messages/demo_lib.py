"""A library that raises its errors as builtin exceptions."""


def parse_rate(text: str) -> float:
    """A learning rate from its text."""
    try:
        return float(text)
    except ValueError:
        raise ValueError(f"cannot read a learning rate from {text!r}") from None
