// npy.hpp: a small reader and writer of NumPy's .npy files for the weft tool's operands.
//
// Reads format versions 1.0, 2.0 and 3.0 (numpy/lib/format.py): the magic "\x93NUMPY", the
// version, a little-endian header length (2 bytes in 1.0, 4 in 2.0 and 3.0), then a Python dict
// literal {'descr': ..., 'fortran_order': ..., 'shape': (...)}, then the data. Only what the
// tool uses is accepted: C order, dtypes int8 ('|i1'), uint8 ('|u1'), little-endian int32
// ('<i4') and float32 ('<f4', model inputs of `weft run`); anything else (Fortran order, other dtypes, big-endian int32, a malformed or
// truncated header, too few or too many data bytes) is a weft::npy::Error whose message names
// the file and what to do. Writes version 1.0 (2.0 when the header needs it) the way numpy does:
// header padded with spaces to a multiple of 64 bytes and ended by '\n'.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace weft::npy {

enum class Dtype { kInt8, kUint8, kInt32, kFloat32 };

// "int8", "uint8", "int32", "float32".
const char* dtype_name(Dtype d);
size_t itemsize(Dtype d);

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Array {
  Dtype dtype = Dtype::kInt8;
  std::vector<uint64_t> shape;  // empty: a 0-d array (one element)
  std::vector<uint8_t> data;    // C order, little endian, elements() * itemsize(dtype) bytes

  uint64_t elements() const;
  // "(2, 3)" as numpy prints shapes.
  std::string shape_string() const;
  // Element i as int32 (int8 and uint8 widened; float32 truncated).
  int32_t at(size_t i) const;
  // Element i as float (any dtype).
  float at_float(size_t i) const;
};

// Parses a whole file's bytes; `name` (the file name) starts every error message.
Array parse(std::span<const uint8_t> bytes, const std::string& name);
// Reads and parses a file.
Array read(const std::string& path);

// The bytes of a .npy file holding `a` (checks that data matches shape and dtype).
std::vector<uint8_t> serialize(const Array& a);
void write(const std::string& path, const Array& a);

// Builders for the writer.
Array from_int8(std::span<const uint8_t> bytes, std::vector<uint64_t> shape, bool is_signed);
Array from_int32(std::span<const int32_t> values, std::vector<uint64_t> shape);
Array from_float32(std::span<const float> values, std::vector<uint64_t> shape);

// A uint16 file ('<u2'): the BF16 encodings `weft gemm --out-fmt bf16` writes. Write-only: no
// tool reads uint16, so Dtype (which every reader switches over) stays the readable types.
std::vector<uint8_t> serialize_uint16(std::span<const uint16_t> values,
                                      const std::vector<uint64_t>& shape);
void write_uint16(const std::string& path, std::span<const uint16_t> values,
                  const std::vector<uint64_t>& shape);

}  // namespace weft::npy
