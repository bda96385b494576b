"""Whether the files a run loaded have changed since: stat first, content for sources."""

from __future__ import annotations

from flax_errors_ext.model.runs.fingerprint import LoadedFile, Stat, first_change


def test_a_file_is_unchanged_while_its_size_and_time_are() -> None:
    files = [LoadedFile("/a.py", 10, 5), LoadedFile("/b.so", 20, 6)]
    stats: dict[str, Stat | None] = {"/a.py": (10, 5), "/b.so": (20, 6)}

    def no_hash(path: str) -> str:
        raise AssertionError(f"hashed {path} although its size and time are the same")

    assert first_change(files, stats.get, no_hash, {}) is None


def test_a_source_whose_time_changed_is_compared_by_content() -> None:
    files = [LoadedFile("/a.py", 10, 5)]
    known = {("/a.py", (10, 5)): "old"}
    touched: dict[str, Stat | None] = {"/a.py": (10, 9)}

    assert first_change(files, touched.get, lambda _: "old", known) is None
    assert first_change(files, touched.get, lambda _: "new", known) == "/a.py"
    assert first_change(files, touched.get, lambda _: "old", {}) == "/a.py"  # never noted


def test_other_files_and_missing_ones_change_with_their_stat() -> None:
    assert first_change([LoadedFile("/b.so", 20, 6)], {"/b.so": (20, 7)}.get, str, {}) == "/b.so"
    gone: dict[str, Stat | None] = {}
    assert first_change([LoadedFile("/a.py", 1, 1)], gone.get, str, {}) == "/a.py"
