"""What a paste says: its exception line, even where the paste was cut before it."""

from __future__ import annotations

from flax_errors_ext.model.lookup.paste import exception_line

IPYTHON_CUT = """---------------------------------------------------------------------------
TypeError                                 Traceback (most recent call last)
Cell In[10], line 19
     17 x = 1
---> 19 model = nnx.Linear(2, 3)
File /usr/lib/python3/site-packages/flax/nnx/module.py:123, in Module.__init__(self)
    122 def f():
--> 123     raise TypeError("bad")
"""


def test_the_exception_line_of_a_traceback_is_its_last_error() -> None:
    paste = 'Traceback (most recent call last):\n  File "x.py", line 3, in <module>\n'
    paste += "    f()\nValueError: boom\n"

    assert exception_line(paste) == "ValueError: boom"


def test_a_paste_cut_before_its_exception_line_quotes_no_header_or_frame() -> None:
    assert exception_line(IPYTHON_CUT) == ""


def test_a_paste_without_an_exception_line_is_read_from_its_last_line_naming_an_error() -> None:
    paste = "Epoch 3 done\nthe step raised a ShapeError in the dense layer\nsaving checkpoint\n"

    assert exception_line(paste) == "the step raised a ShapeError in the dense layer"
    assert exception_line("Epoch 3 done\nsaving checkpoint\n") == "saving checkpoint"
