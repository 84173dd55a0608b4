// The parts of the extension module rdpkit._rdpkit (module.cc defines it).
#ifndef RDPKIT_PYTHON_SRC_BINDINGS_H_
#define RDPKIT_PYTHON_SRC_BINDINGS_H_

#include <pybind11/pybind11.h>

namespace rdpkit::python {

// Events as JSON text, epsilon, delta, rdp, calibrate (rdpkit.accountant_api wraps them).
void BindAccountant(pybind11::module_& m);
// Training from arrays, the model (predict, save, load) (rdpkit.estimators wraps them).
void BindTrees(pybind11::module_& m);

}  // namespace rdpkit::python

#endif  // RDPKIT_PYTHON_SRC_BINDINGS_H_
