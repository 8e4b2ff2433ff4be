// weft/weft.hpp: the whole libweft API (Device, Buffer, Queue, errors, perf, ops, SIMT).
#pragma once

#include "weft/descriptor.hpp"
#include "weft/device.hpp"
#include "weft/error.hpp"
#include "weft/ops.hpp"
#include "weft/perf.hpp"
#include "weft/simt.hpp"
