"""Words a message for helper_drift_errors; listed nowhere, imported by it."""


def wording() -> str:
    return "worded by a helper"
