// .npy reader and writer (npy.hpp). The format: numpy/lib/format.py and NEP 1.
#include "npy.hpp"

#include <cctype>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <map>
#include <optional>

namespace weft::npy {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;

[[noreturn]] void fail(const std::string& name, const std::string& what) {
  throw Error(name + ": " + what);
}

// A value of the header dict: a string, a bool or a tuple of integers.
struct Value {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string str;
  bool b = false;
  std::vector<uint64_t> tuple;
};

// Parser of the header, a Python dict literal as numpy writes it (repr of a dict of str keys
// with str, bool and tuple-of-int values), e.g. "{'descr': '<i4', 'fortran_order': False,
// 'shape': (3, 4), }". Accepts either quote, any whitespace, trailing commas and the 'L' suffix
// of Python 2 integers.
class HeaderParser {
 public:
  HeaderParser(std::string_view s, const std::string& name) : s_(s), name_(name) {}

  std::map<std::string, Value> dict() {
    std::map<std::string, Value> d;
    expect('{');
    for (;;) {
      skip_ws();
      if (peek() == '}') {
        ++i_;
        break;
      }
      const std::string key = string_literal();
      expect(':');
      Value v = value();
      if (!d.emplace(key, std::move(v)).second) bad("the key '" + key + "' appears twice");
      skip_ws();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      if (peek() == '}') {
        ++i_;
        break;
      }
      bad("expected ',' or '}' after the value of '" + key + "'");
    }
    skip_ws();
    if (i_ != s_.size()) bad("unexpected text after the dict");
    return d;
  }

 private:
  [[noreturn]] void bad(const std::string& what) {
    fail(name_, "bad .npy header (" + what + " at character " + std::to_string(i_) +
                    " of the header \"" + printable() + "\")");
  }
  std::string printable() const {
    std::string r;
    for (char c : s_.substr(0, 120)) {
      r += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
    return s_.size() > 120 ? r + "..." : r;
  }
  void skip_ws() {
    while (i_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  void expect(char c) {
    skip_ws();
    if (peek() != c) bad(std::string("expected '") + c + "'");
    ++i_;
  }
  std::string string_literal() {
    skip_ws();
    const char q = peek();
    if (q != '\'' && q != '"') bad("expected a quoted string");
    ++i_;
    std::string r;
    while (i_ < s_.size() && s_[i_] != q) {
      if (s_[i_] == '\\') bad("escape sequences are not supported");
      r += s_[i_++];
    }
    if (i_ >= s_.size()) bad("unterminated string");
    ++i_;
    return r;
  }
  uint64_t integer() {
    skip_ws();
    if (!std::isdigit(static_cast<unsigned char>(peek()))) bad("expected a non-negative integer");
    uint64_t v = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      const uint64_t d = static_cast<uint64_t>(s_[i_++] - '0');
      if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) bad("integer too large");
      v = v * 10 + d;
    }
    if (peek() == 'L') ++i_;
    return v;
  }
  Value value() {
    skip_ws();
    Value v;
    const char c = peek();
    if (c == '\'' || c == '"') {
      v.kind = Value::kString;
      v.str = string_literal();
    } else if (s_.substr(i_, 4) == "True") {
      v.kind = Value::kBool;
      v.b = true;
      i_ += 4;
    } else if (s_.substr(i_, 5) == "False") {
      v.kind = Value::kBool;
      i_ += 5;
    } else if (c == '(') {
      v.kind = Value::kTuple;
      ++i_;
      for (;;) {
        skip_ws();
        if (peek() == ')') {
          ++i_;
          break;
        }
        v.tuple.push_back(integer());
        skip_ws();
        if (peek() == ',') {
          ++i_;
        } else if (peek() != ')') {
          bad("expected ',' or ')' in the shape");
        }
      }
    } else if (c == '[') {
      bad("a structured dtype (a list) is not supported");
    } else {
      bad("expected a string, True, False or a tuple");
    }
    return v;
  }

  std::string_view s_;
  const std::string& name_;
  size_t i_ = 0;
};

Dtype parse_descr(const std::string& descr, const std::string& name) {
  if (descr == "|i1" || descr == "<i1" || descr == ">i1" || descr == "=i1") return Dtype::kInt8;
  if (descr == "|u1" || descr == "<u1" || descr == ">u1" || descr == "=u1") return Dtype::kUint8;
  if (descr == "<i4") return Dtype::kInt32;
  if (descr == "<f4") return Dtype::kFloat32;
  if (descr == ">i4") {
    fail(name,
         "big-endian int32 ('>i4') is not supported; save it little-endian, e.g. "
         "np.save(f, a.astype('<i4'))");
  }
  static const std::map<std::string, std::string> known = {
      {"|b1", "bool"},      {"<i2", "int16"},       {"<u2", "uint16"},  {"<u4", "uint32"},
      {"<i8", "int64"},     {"<u8", "uint64"},      {"<f2", "float16"},
      {"<f8", "float64"},   {">i2", "int16"},       {">f4", "float32"}, {">f8", "float64"},
      {"<c8", "complex64"}, {"<c16", "complex128"}, {"|O", "object"}};
  const auto it = known.find(descr);
  fail(name,
       "dtype '" + descr + "'" + (it != known.end() ? " (" + it->second + ")" : "") +
           " is not supported: use int8, uint8, int32 or float32 (e.g. np.save(f, a.astype(np.int8)))");
}

uint64_t checked_product(const std::vector<uint64_t>& shape, uint64_t item,
                         const std::string& name) {
  uint64_t n = item;
  for (uint64_t d : shape) {
    if (d != 0 && n > std::numeric_limits<uint64_t>::max() / d) {
      fail(name, "the shape's size overflows 64 bits");
    }
    n *= d;
  }
  return n;
}

uint32_t le32(const uint8_t* p) {
  return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

}  // namespace

const char* dtype_name(Dtype d) {
  switch (d) {
    case Dtype::kInt8:
      return "int8";
    case Dtype::kUint8:
      return "uint8";
    case Dtype::kInt32:
      return "int32";
    case Dtype::kFloat32:
      return "float32";
  }
  return "?";
}

size_t itemsize(Dtype d) { return d == Dtype::kInt32 || d == Dtype::kFloat32 ? 4 : 1; }

uint64_t Array::elements() const {
  uint64_t n = 1;
  for (uint64_t d : shape) n *= d;
  return n;
}

std::string Array::shape_string() const {
  std::string r = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) r += ", ";
    r += std::to_string(shape[i]);
  }
  if (shape.size() == 1) r += ",";
  return r + ")";
}

int32_t Array::at(size_t i) const {
  switch (dtype) {
    case Dtype::kInt8:
      return static_cast<int8_t>(data[i]);
    case Dtype::kUint8:
      return data[i];
    case Dtype::kInt32:
      return static_cast<int32_t>(le32(&data[4 * i]));
    case Dtype::kFloat32:
      return static_cast<int32_t>(at_float(i));
  }
  return 0;
}

float Array::at_float(size_t i) const {
  if (dtype != Dtype::kFloat32) return static_cast<float>(at(i));
  const uint32_t bits = le32(&data[4 * i]);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Array parse(std::span<const uint8_t> b, const std::string& name) {
  if (b.size() < kMagicLen + 2 || std::memcmp(b.data(), kMagic, kMagicLen) != 0) {
    fail(name, "not a .npy file (it does not start with \"\\x93NUMPY\"; write it with np.save)");
  }
  const unsigned major = b[6], minor = b[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    fail(name, ".npy format version " + std::to_string(major) + "." + std::to_string(minor) +
                   " is not supported (1.0, 2.0 or 3.0)");
  }
  const size_t len_bytes = major == 1 ? 2 : 4;
  if (b.size() < kMagicLen + 2 + len_bytes) fail(name, "truncated .npy header (no header length)");
  const uint8_t* lp = b.data() + kMagicLen + 2;
  const uint64_t hlen = major == 1 ? (uint64_t{lp[0]} | uint64_t{lp[1]} << 8) : le32(lp);
  const uint64_t data_off = kMagicLen + 2 + len_bytes + hlen;
  if (data_off > b.size()) {
    fail(name, "truncated .npy header (the header says " + std::to_string(hlen) +
                   " bytes, the file has " +
                   std::to_string(b.size() - (kMagicLen + 2 + len_bytes)) +
                   " after the header length)");
  }
  const std::string_view header(reinterpret_cast<const char*>(lp + len_bytes), hlen);
  auto d = HeaderParser(header, name).dict();
  for (const char* key : {"descr", "fortran_order", "shape"}) {
    if (!d.count(key)) fail(name, std::string("bad .npy header (no '") + key + "' key)");
  }
  if (d.size() != 3) fail(name, "bad .npy header (keys other than descr, fortran_order, shape)");
  const Value& descr = d["descr"];
  const Value& fortran = d["fortran_order"];
  const Value& shape = d["shape"];
  if (descr.kind != Value::kString) fail(name, "bad .npy header ('descr' is not a string)");
  if (fortran.kind != Value::kBool) fail(name, "bad .npy header ('fortran_order' is not a bool)");
  if (shape.kind != Value::kTuple) fail(name, "bad .npy header ('shape' is not a tuple)");
  Array a;
  a.dtype = parse_descr(descr.str, name);
  a.shape = shape.tuple;
  if (fortran.b && a.shape.size() > 1) {
    fail(name,
         "the array is in Fortran order; save a C-order array "
         "(np.save(f, np.ascontiguousarray(a)))");
  }
  const uint64_t want = checked_product(a.shape, itemsize(a.dtype), name);
  const uint64_t have = b.size() - data_off;
  if (have != want) {
    fail(name, std::string(have < want ? "truncated data" : "extra data after the array") + ": " +
                   std::to_string(have) + " bytes after the header, shape " + a.shape_string() +
                   " " + dtype_name(a.dtype) + " needs " + std::to_string(want));
  }
  a.data.assign(b.begin() + static_cast<std::ptrdiff_t>(data_off), b.end());
  return a;
}

Array read(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, std::string("cannot open (") + std::strerror(errno) + ")");
  const std::vector<uint8_t> bytes{std::istreambuf_iterator<char>(f),
                                   std::istreambuf_iterator<char>()};
  if (f.bad()) fail(path, "read error");
  return parse(bytes, path);
}

namespace {

// The file's bytes: a numpy header for `descr` and `shape`, then `data` (already checked).
std::vector<uint8_t> serialize_raw(const char* descr, const std::vector<uint64_t>& shape,
                                   std::span<const uint8_t> data) {
  Array dims;  // for shape_string() alone
  dims.shape = shape;
  std::string h = std::string("{'descr': '") + descr +
                  "', 'fortran_order': False, 'shape': " + dims.shape_string() + ", }";
  // Pad with spaces so that magic + version + length + header is a multiple of 64, ending '\n'.
  size_t len_bytes = 2;
  unsigned major = 1;
  auto total = [&] { return kMagicLen + 2 + len_bytes + h.size() + 1; };
  if ((total() + 63) / 64 * 64 - kMagicLen - 2 - len_bytes > 0xffff) {
    len_bytes = 4;
    major = 2;
  }
  h.append((64 - total() % 64) % 64, ' ');
  h += '\n';
  std::vector<uint8_t> out(kMagic, kMagic + kMagicLen);
  out.push_back(static_cast<uint8_t>(major));
  out.push_back(0);
  const uint64_t hl = h.size();
  for (size_t i = 0; i < len_bytes; ++i) out.push_back(static_cast<uint8_t>(hl >> (8 * i)));
  out.insert(out.end(), h.begin(), h.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

void write_bytes(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) fail(path, std::string("cannot create (") + std::strerror(errno) + ")");
  f.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  f.close();
  if (!f) fail(path, "write error");
}

}  // namespace

std::vector<uint8_t> serialize(const Array& a) {
  if (a.data.size() != checked_product(a.shape, itemsize(a.dtype), "npy::serialize")) {
    throw Error("npy::serialize: " + std::to_string(a.data.size()) + " data bytes for shape " +
                a.shape_string() + " " + dtype_name(a.dtype));
  }
  const char* descr = a.dtype == Dtype::kInt8    ? "|i1"
                      : a.dtype == Dtype::kUint8 ? "|u1"
                      : a.dtype == Dtype::kInt32 ? "<i4"
                                                 : "<f4";
  return serialize_raw(descr, a.shape, a.data);
}

std::vector<uint8_t> serialize_uint16(std::span<const uint16_t> values,
                                      const std::vector<uint64_t>& shape) {
  if (values.size() != checked_product(shape, 1, "npy::serialize_uint16")) {
    Array dims;
    dims.shape = shape;
    throw Error("npy::serialize_uint16: " + std::to_string(values.size()) + " values for shape " +
                dims.shape_string());
  }
  std::vector<uint8_t> data(values.size() * 2);
  for (size_t i = 0; i < values.size(); ++i) {  // little endian, as '<u2' says
    data[2 * i] = static_cast<uint8_t>(values[i]);
    data[2 * i + 1] = static_cast<uint8_t>(values[i] >> 8);
  }
  return serialize_raw("<u2", shape, data);
}

void write_uint16(const std::string& path, std::span<const uint16_t> values,
                  const std::vector<uint64_t>& shape) {
  write_bytes(path, serialize_uint16(values, shape));
}

void write(const std::string& path, const Array& a) { write_bytes(path, serialize(a)); }

Array from_int8(std::span<const uint8_t> bytes, std::vector<uint64_t> shape, bool is_signed) {
  Array a;
  a.dtype = is_signed ? Dtype::kInt8 : Dtype::kUint8;
  a.shape = std::move(shape);
  a.data.assign(bytes.begin(), bytes.end());
  return a;
}

Array from_int32(std::span<const int32_t> values, std::vector<uint64_t> shape) {
  Array a;
  a.dtype = Dtype::kInt32;
  a.shape = std::move(shape);
  a.data.resize(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    const auto u = static_cast<uint32_t>(values[i]);
    for (int k = 0; k < 4; ++k) a.data[4 * i + k] = static_cast<uint8_t>(u >> (8 * k));
  }
  return a;
}

}  // namespace weft::npy

namespace weft::npy {
Array from_float32(std::span<const float> values, std::vector<uint64_t> shape) {
  Array a;
  a.dtype = Dtype::kFloat32;
  a.shape = std::move(shape);
  a.data.resize(values.size() * 4);
  for (size_t i = 0; i < values.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &values[i], sizeof u);
    for (int k = 0; k < 4; ++k) a.data[4 * i + k] = static_cast<uint8_t>(u >> (8 * k));
  }
  return a;
}
}  // namespace weft::npy
