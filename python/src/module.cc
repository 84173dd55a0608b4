// rdpkit._rdpkit: the pybind11 module under the Python package rdpkit (DESIGN.md §8). The C++
// errors become the package's exception classes (python/rdpkit/_errors.py), so a Python caller
// catches ValueError for bad input, with the field, value and accepted range as attributes.
#include <pybind11/pybind11.h>

#include <exception>

#include "bindings.h"
#include "rdpkit/accountant/errors.h"

namespace py = pybind11;

namespace {

// Raises rdpkit._errors.<name>(message, *extra) as the current Python error.
template <class... Extra>
void RaisePython(const char* name, const char* message, const Extra&... extra) {
  const py::object type = py::module_::import("rdpkit._errors").attr(name);
  const py::object error = type(message, extra...);
  PyErr_SetObject(type.ptr(), error.ptr());
}

void TranslateErrors(std::exception_ptr pointer) {
  try {
    if (pointer) std::rethrow_exception(pointer);
  } catch (const rdpkit::InvalidArgument& e) {
    RaisePython("InvalidArgumentError", e.what(), e.field(), e.value(), e.accepted());
  } catch (const rdpkit::NumericalError& e) {
    RaisePython("NumericalError", e.what());
  } catch (const rdpkit::InternalError& e) {
    RaisePython("InternalError", e.what());
  }
}

}  // namespace

PYBIND11_MODULE(_rdpkit, m) {
  m.doc() = "rdpkit's C++ accountant and private boosted-tree trainer (use the rdpkit package)";
  py::register_exception_translator(&TranslateErrors);
  rdpkit::python::BindAccountant(m);
  rdpkit::python::BindTrees(m);
}
