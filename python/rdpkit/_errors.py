"""The exceptions the C++ library's errors become (python/src/module.cc raises them)."""


class InvalidArgumentError(ValueError):
    """A parameter outside its accepted range (rdpkit::InvalidArgument).

    ``field`` names the parameter (an event's JSON path, a config key, "X", ...), ``value`` the
    value given (as text) and ``accepted`` the accepted range; the last two are empty when the
    message is free-form.
    """

    def __init__(self, message, field="", value="", accepted=""):
        super().__init__(message)
        self.field = field
        self.value = value
        self.accepted = accepted


class NumericalError(ArithmeticError):
    """A certified evaluation missed its precision, or a solver found no bracket."""


class InternalError(RuntimeError):
    """A broken internal invariant of rdpkit (a bug: please report it)."""


class PrivacyLeakWarning(RuntimeWarning):
    """The model does not have the differential-privacy guarantee its parameters ask for
    (e.g. feature bounds read off the training data), as diffprivlib's warning of that name."""
