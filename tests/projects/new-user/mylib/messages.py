"""Error messages, worded away from the classes (as in many libraries)."""

URL = "https://mylib.example.org/errors/api_reference/mylib.errors.html"


def mismatch_message(left: tuple[int, ...], right: tuple[int, ...]) -> str:
    return (
        f"cannot add shapes {left} and {right}: mylib does not broadcast. "
        f"See {URL}#mylib.errors.ShapeMismatchError"
    )
