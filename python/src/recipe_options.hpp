// A quantization recipe from its preset name and keyword options (tcemu.quantize,
// tcemu.golden.generate): the options are those of a golden file's "recipe" object.
#pragma once

#include <pybind11/pybind11.h>

#include <string>

#include "tcemu/quant_recipe.hpp"

namespace tcemu::py_bind {

// ValueError naming the recipe or option ("recipe.mx.elem: ...") when they are not valid.
quant::Recipe make_recipe(const std::string& name, const pybind11::dict& options);

}  // namespace tcemu::py_bind
