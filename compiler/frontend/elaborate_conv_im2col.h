// conv and gather_in_l1 of PyPTO's catalogue, written by the front end as ops ptoc has (elaborate_conv_im2col.cpp):
// conv (1D / 2D, strides, paddings, dilations, groups, a bias, relu) and experimental gather_in_l1.
#pragma once
#include <string_view>

#include "compiler/frontend/elaborate_call.h"

namespace ptoc::fe {

bool is_conv_op(std::string_view fn);
EV call_conv(Elaborator& el, const Elaborator::Call& c);

}  // namespace ptoc::fe
