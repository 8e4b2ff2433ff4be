// The .npy reader and writer (sw/tools/npy.hpp) against numpy itself: files numpy wrote at build
// time (gen_npy.py: the array's raw bytes beside each), our files read back by numpy, and
// malformed or unsupported files refused with a message that says what is wrong.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "npy.hpp"
#include "weft/tb/options.hpp"

namespace {

namespace fs = std::filesystem;
using weft::npy::Array;
using weft::npy::Dtype;

std::vector<uint8_t> file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }

// A v1.0 file from a header dict (padded as numpy does) and data bytes.
std::vector<uint8_t> v1(const std::string& dict, const std::vector<uint8_t>& data) {
  std::string h = dict;
  while ((10 + h.size() + 1) % 64 != 0) h += ' ';
  h += '\n';
  std::string f = std::string("\x93NUMPY\x01\x00", 8);
  f += static_cast<char>(h.size() & 0xff);
  f += static_cast<char>(h.size() >> 8);
  f += h;
  std::vector<uint8_t> out = bytes_of(f);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// The message of the npy::Error that parsing `b` throws ("" if it does not throw).
std::string error_of(const std::vector<uint8_t>& b) {
  try {
    weft::npy::parse(b, "x.npy");
  } catch (const weft::npy::Error& e) {
    return e.what();
  }
  return "";
}

Dtype dtype_from(const std::string& name) {
  if (name == "int8") return Dtype::kInt8;
  if (name == "uint8") return Dtype::kUint8;
  EXPECT_EQ(name, "int32");
  return Dtype::kInt32;
}

TEST(Npy, ReadsEveryFileNumpyWrote) {
  const fs::path dir = WEFT_NPY_SAMPLES;
  std::ifstream man(dir / "manifest.txt");
  ASSERT_TRUE(man) << dir;
  std::string line;
  int cases = 0;
  while (std::getline(man, line)) {
    if (line.empty()) continue;
    std::istringstream ls(line);
    std::string name, dtype;
    ls >> name >> dtype;
    std::vector<uint64_t> shape;
    for (uint64_t d; ls >> d;) shape.push_back(d);
    SCOPED_TRACE(line);
    const Array a = weft::npy::read((dir / (name + ".npy")).string());
    EXPECT_EQ(a.dtype, dtype_from(dtype));
    EXPECT_EQ(a.shape, shape);
    EXPECT_EQ(a.data, file_bytes(dir / (name + ".raw")));
    ++cases;
  }
  EXPECT_EQ(cases, 9);
}

TEST(Npy, ElementsAreReadAsNumpyHasThem) {
  // i32_1d holds [0, 1, -1, 2^31-1, -2^31, 123456789, -98765] (gen_npy.py).
  const Array a = weft::npy::read(std::string(WEFT_NPY_SAMPLES) + "/i32_1d.npy");
  const std::vector<int32_t> want = {0, 1, -1, INT32_MAX, INT32_MIN, 123456789, -98765};
  ASSERT_EQ(a.elements(), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_EQ(a.at(i), want[i]) << i;
  const Array s = weft::npy::read(std::string(WEFT_NPY_SAMPLES) + "/i32_scalar.npy");
  EXPECT_TRUE(s.shape.empty());
  EXPECT_EQ(s.elements(), 1u);
  EXPECT_EQ(s.at(0), -7);
}

TEST(Npy, RefusesWhatNumpyWroteInOtherDtypesAndOrders) {
  const std::string dir = WEFT_NPY_SAMPLES;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"f64", "dtype '<f8' (float64) is not supported"},
      {"i16", "dtype '<i2' (int16) is not supported"},
      {"bool", "dtype '|b1' (bool) is not supported"},
      {"be_i32", "big-endian int32 ('>i4') is not supported"},
      {"fortran_i8", "Fortran order"},
      {"structured", "structured dtype"},
  };
  for (const auto& [name, phrase] : cases) {
    SCOPED_TRACE(name);
    const std::string path = dir + "/" + name + ".npy";
    try {
      weft::npy::read(path);
      ADD_FAILURE() << "accepted " << path;
    } catch (const weft::npy::Error& e) {
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind(path + ": ", 0), 0u) << "names the file: " << e.what();
    }
  }
}

TEST(Npy, RefusesMalformedAndTruncatedFiles) {
  const std::string good = "{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3), }";
  const std::vector<uint8_t> six(6, 1);
  ASSERT_EQ(error_of(v1(good, six)), "");  // the base case parses
  struct Case {
    std::vector<uint8_t> bytes;
    std::string phrase;
  };
  std::vector<uint8_t> bad_magic = v1(good, six);
  bad_magic[1] = 'X';
  std::vector<uint8_t> v4 = v1(good, six);
  v4[6] = 4;
  std::vector<uint8_t> long_len = v1(good, six);
  long_len[8] = 0xff;
  long_len[9] = 0x7f;
  const std::vector<Case> cases = {
      {{}, "not a .npy file"},
      {bytes_of("PK\x03\x04 a zip"), "not a .npy file"},
      {bad_magic, "not a .npy file"},
      {v4, "format version 4.0 is not supported"},
      {bytes_of(std::string("\x93NUMPY\x01\x00\x10", 9)), "no header length"},
      {long_len, "truncated .npy header"},
      {v1("{'descr': '|i1', 'fortran_order': False, }", six), "no 'shape' key"},
      {v1("{'descr': '|i1', 'shape': (6,), }", six), "no 'fortran_order' key"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (6,), 'x': 1}", six),
       "expected a string, True, False or a tuple"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (6,), 'x': 'y'}", six),
       "keys other than"},
      {v1("{'descr': '|i1, 'fortran_order': False, 'shape': (6,)}", six), "bad .npy header"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (-6,)}", six),
       "expected a non-negative integer"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (2, 3)", six), "expected ',' or '}'"},
      {v1("{'descr': '|i1', 'fortran_order': 0, 'shape': (2, 3)}", six),
       "expected a string, True, False or a tuple"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': 6}", six),
       "expected a string, True, False or a tuple"},
      {v1("{'descr': '|i1', 'descr': '|i1', 'fortran_order': False, 'shape': (6,)}", six),
       "appears twice"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (6,)} extra", six),
       "unexpected text after the dict"},
      {v1(good, std::vector<uint8_t>(5, 1)),
       "truncated data: 5 bytes after the header, shape "
       "(2, 3) int8 needs 6"},
      {v1(good, std::vector<uint8_t>(7, 1)), "extra data after the array"},
      {v1("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}", six),
       "truncated data: 6 bytes after the header, shape (2, 3) int32 needs 24"},
      {v1("{'descr': '|i1', 'fortran_order': False, "
          "'shape': (4294967296, 4294967296, 4294967296)}",
          six),
       "overflows 64 bits"},
      {v1("{'descr': '|i1', 'fortran_order': False, 'shape': (99999999999999999999999,)}", six),
       "integer too large"},
      {v1("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}", six), "(float64)"},
      {v1("{'descr': 'i1', 'fortran_order': False, 'shape': (2, 3)}", six),
       "dtype 'i1' is not supported"},
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i) + ": " + cases[i].phrase);
    const std::string msg = error_of(cases[i].bytes);
    ASSERT_NE(msg, "") << "accepted";
    EXPECT_NE(msg.find(cases[i].phrase), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("x.npy: ", 0), 0u) << msg;
  }
}

// Random damage to valid files of every dtype: truncations at every length, flipped and replaced
// bytes anywhere, header text edits, header lengths and shapes from the edge. Each parse either
// returns an array whose data is exactly its shape's size, or throws npy::Error naming the file;
// nothing else (WEFT_SEED repeats a run).
TEST(Npy, DamagedFilesAreReadConsistentlyOrRefusedByName) {
  std::mt19937_64 rng = weft::tb::make_rng();
  std::vector<std::vector<uint8_t>> bases;
  bases.push_back(weft::npy::serialize(weft::npy::from_int8(std::vector<uint8_t>(6, 7), {2, 3}, true)));
  bases.push_back(weft::npy::serialize(weft::npy::from_int8(std::vector<uint8_t>(5, 250), {5}, false)));
  bases.push_back(weft::npy::serialize(weft::npy::from_int32(std::vector<int32_t>(12, -3), {3, 4})));
  bases.push_back(weft::npy::serialize(weft::npy::from_float32(std::vector<float>(4, 0.5f), {1, 2, 2})));
  bases.push_back(weft::npy::serialize(weft::npy::from_int32(std::vector<int32_t>(1, 9), {})));
  const std::vector<std::string> header_tokens = {
      "{", "}", "(", ")", ",", ":", "'", "\"", "L", "True", "False", "'descr'", "'shape'",
      "'fortran_order'", "'<i4'", "'|i1'", "'<f8'", "18446744073709551616", "4294967296", "-1",
      "0", " ", "\n", "\\", "\x00", "[", "]"};
  int tried = 0, read = 0, refused = 0;
  auto attempt = [&](const std::vector<uint8_t>& b) {
    ++tried;
    try {
      const Array a = weft::npy::parse(b, "x.npy");
      uint64_t n = weft::npy::itemsize(a.dtype);
      for (uint64_t d : a.shape) n *= d;
      EXPECT_EQ(a.data.size(), n) << "read an array whose data is not its shape's size";
      ++read;
    } catch (const weft::npy::Error& e) {
      EXPECT_EQ(std::string(e.what()).rfind("x.npy: ", 0), 0u) << e.what();
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not an npy::Error: " << e.what();
    }
  };
  for (const auto& base : bases) {
    for (size_t len = 0; len < base.size(); ++len) {
      attempt(std::vector<uint8_t>(base.begin(), base.begin() + static_cast<std::ptrdiff_t>(len)));
    }
    for (int i = 0; i < 200; ++i) {
      std::vector<uint8_t> b = base;
      for (int k = 1 + int(rng() % 4); k > 0; --k) {
        const size_t at = rng() % b.size();
        b[at] = rng() % 2 ? static_cast<uint8_t>(b[at] ^ (1u << (rng() % 8))) : static_cast<uint8_t>(rng());
      }
      attempt(b);
    }
    // Header text edits: tokens inserted, characters deleted (the length field follows).
    const size_t hlen = base[8] | (base[9] << 8);
    const std::string header(base.begin() + 10, base.begin() + 10 + static_cast<std::ptrdiff_t>(hlen));
    const std::vector<uint8_t> data(base.begin() + 10 + static_cast<std::ptrdiff_t>(hlen), base.end());
    for (int i = 0; i < 200; ++i) {
      std::string h = header;
      for (int k = 1 + int(rng() % 3); k > 0; --k) {
        const size_t at = rng() % (h.size() + 1);
        if (rng() % 2) h.insert(at, header_tokens[rng() % header_tokens.size()]);
        else if (at < h.size()) h.erase(at, 1 + rng() % 6);
      }
      attempt(v1(h, data));
    }
    // The header length field: zero, one short, one long, all ones.
    for (unsigned x : {0u, unsigned(hlen - 1), unsigned(hlen + 1), 0xffffu}) {
      std::vector<uint8_t> b = base;
      b[8] = static_cast<uint8_t>(x);
      b[9] = static_cast<uint8_t>(x >> 8);
      attempt(b);
    }
  }
  std::printf("%d damaged files: %d read consistently, %d refused with npy::Error\n", tried, read, refused);
  EXPECT_GT(refused, tried / 2);
}

TEST(Npy, AcceptsPython2HeadersAndDoubleQuotes) {
  // numpy's reader accepts 'L' suffixes (files written by Python 2) and any literal quoting.
  const std::vector<uint8_t> six = {1, 2, 3, 4, 5, 250};
  const Array a = weft::npy::parse(
      v1("{\"descr\": \"|u1\", \"fortran_order\": False, \"shape\": (2L, 3L)}", six), "x.npy");
  EXPECT_EQ(a.dtype, Dtype::kUint8);
  EXPECT_EQ(a.shape, (std::vector<uint64_t>{2, 3}));
  EXPECT_EQ(a.at(5), 250);
  // A 1-D array may say fortran_order True: the layout is the same.
  const Array b =
      weft::npy::parse(v1("{'descr': '|i1', 'fortran_order': True, 'shape': (6,)}", six), "x.npy");
  EXPECT_EQ(b.at(5), -6);
}

// Runs numpy on a file we wrote: dtype, shape and every element, one line each.
std::string numpy_view(const std::string& path) {
  const std::string cmd = std::string(WEFT_PYTHON) +
                          " -c \"import sys, numpy as np; a = np.load(sys.argv[1]); "
                          "print(a.dtype.name); print(a.shape); print(a.flags.c_contiguous); "
                          "print(' '.join(str(int(v)) for v in a.ravel()))\" " +
                          path + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return "popen failed";
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int rc = pclose(p);
  return rc == 0 ? out : "python failed (" + std::to_string(rc) + "): " + out;
}

std::string expected_view(const Array& a) {
  std::string s =
      std::string(weft::npy::dtype_name(a.dtype)) + "\n" + a.shape_string() + "\n" + "True\n";
  for (uint64_t i = 0; i < a.elements(); ++i) {
    if (i) s += ' ';
    s += std::to_string(a.at(i));
  }
  return s + "\n";
}

TEST(Npy, NumpyReadsWhatWeWrite) {
  std::mt19937_64 rng = weft::tb::make_rng();
  const fs::path dir = fs::path(testing::TempDir()) / "weft_npy_write";
  fs::create_directories(dir);
  std::vector<Array> arrays;
  {
    std::vector<uint8_t> b(3 * 5);
    for (auto& x : b) x = static_cast<uint8_t>(rng());
    arrays.push_back(weft::npy::from_int8(b, {3, 5}, true));
    arrays.push_back(weft::npy::from_int8(b, {15}, false));
    arrays.push_back(weft::npy::from_int8(b, {1, 3, 1, 5}, true));
    std::vector<int32_t> v(12);
    for (auto& x : v) x = static_cast<int32_t>(rng());
    v[0] = INT32_MIN;
    v[1] = INT32_MAX;
    arrays.push_back(weft::npy::from_int32(v, {2, 2, 3}));
    arrays.push_back(weft::npy::from_int32(std::vector<int32_t>{42}, {}));
  }
  for (size_t i = 0; i < arrays.size(); ++i) {
    const Array& a = arrays[i];
    const std::string path = (dir / ("a" + std::to_string(i) + ".npy")).string();
    weft::npy::write(path, a);
    SCOPED_TRACE(path);
    const std::vector<uint8_t> bytes = file_bytes(path);
    // numpy's layout: the data starts at a multiple of 64, after a '\n'.
    const size_t data_off = bytes.size() - a.data.size();
    EXPECT_EQ(data_off % 64, 0u);
    EXPECT_EQ(bytes[data_off - 1], '\n');
    EXPECT_EQ(numpy_view(path), expected_view(a));
    // And our reader gives back the same array.
    const Array back = weft::npy::read(path);
    EXPECT_EQ(back.dtype, a.dtype);
    EXPECT_EQ(back.shape, a.shape);
    EXPECT_EQ(back.data, a.data);
  }
}

TEST(Npy, NumpyReadsTheUint16Writer) {
  // weft gemm --out-fmt bf16 writes BF16 encodings this way: little endian, numpy's layout.
  const fs::path dir = fs::path(testing::TempDir()) / "weft_npy_write";
  fs::create_directories(dir);
  const std::string path = (dir / "u16.npy").string();
  const std::vector<uint16_t> v = {0, 1, 0x7fc0, 0xffff, 0x8000, 0x3f80};
  weft::npy::write_uint16(path, v, {2, 3});
  const std::vector<uint8_t> bytes = file_bytes(path);
  const size_t data_off = bytes.size() - 2 * v.size();
  EXPECT_EQ(data_off % 64, 0u);
  EXPECT_EQ(bytes[data_off - 1], '\n');
  EXPECT_EQ(bytes[data_off + 4], 0xc0);  // 0x7fc0, low byte first
  EXPECT_EQ(numpy_view(path), "uint16\n(2, 3)\nTrue\n0 1 32704 65535 32768 16256\n");
  EXPECT_THROW(weft::npy::serialize_uint16(v, {4}), weft::npy::Error);
}

TEST(Npy, WriterUsesVersion2ForHugeHeadersAndChecksSizes) {
  // A header longer than 65535 bytes (a shape of many ones) needs format 2.0.
  std::vector<uint64_t> shape(30000, 1);
  const Array a = weft::npy::from_int8(std::vector<uint8_t>{7}, shape, true);
  const std::vector<uint8_t> b = weft::npy::serialize(a);
  EXPECT_EQ(b[6], 2);
  EXPECT_EQ((b.size() - 1) % 64, 0u);
  const Array back = weft::npy::parse(b, "big.npy");
  EXPECT_EQ(back.shape.size(), 30000u);
  EXPECT_EQ(back.at(0), 7);
  EXPECT_THROW(weft::npy::serialize(weft::npy::from_int8(std::vector<uint8_t>(5), {2, 3}, true)),
               weft::npy::Error);
}

TEST(Npy, MissingFileIsNamed) {
  try {
    weft::npy::read("/nonexistent/dir/x.npy");
    FAIL();
  } catch (const weft::npy::Error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/x.npy: cannot open"), std::string::npos)
        << e.what();
  }
}

}  // namespace
