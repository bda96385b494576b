"""What only this repository runs, none of it in the wheel.

Recording the history, the lock, the device runs and the nox sessions' drivers; the
package never imports it (an import-linter contract).
"""
