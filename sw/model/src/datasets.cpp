// The data sets of `weft eval` (weft/datasets.hpp): digits (gzip CSV) and Fashion-MNIST (gzipped
// IDX files), read with zlib.
#include "weft/datasets.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "weft/error.hpp"

namespace weft {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void bad(const std::string& msg) { throw Error(Errc::kBadArgument, msg); }

const char* kDigitsHint =
    "install the Debian package python3-sklearn (apt-get install python3-sklearn), or give the "
    "file with --data PATH";
const char* kFashionHint =
    "install the Debian package dataset-fashion-mnist (apt-get install dataset-fashion-mnist), "
    "or give the directory of the four .gz IDX files with --data DIR";

void check_split(const std::string& set, const std::string& split) {
  if (split != "test" && split != "train") {
    bad(set + ": unknown split '" + split + "': give --split test or --split train");
  }
}

uint32_t be32(const std::vector<uint8_t>& b, size_t at) {
  return uint32_t(b[at]) << 24 | uint32_t(b[at + 1]) << 16 | uint32_t(b[at + 2]) << 8 | uint32_t(b[at + 3]);
}

}  // namespace

std::vector<uint8_t> read_gzip_file(const std::string& path, const std::string& missing_hint) {
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    bad(path + ": no such file" + (missing_hint.empty() ? "" : "; " + missing_hint));
  }
  if (fs::is_directory(path, ec)) bad(path + ": a directory, not a gzip file");
  std::ifstream f(path, std::ios::binary);
  if (!f) bad(path + ": cannot open the file: " + std::strerror(errno));
  const std::vector<uint8_t> in((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (in.size() < 2 || in[0] != 0x1f || in[1] != 0x8b) {
    bad(path + ": not a gzip file (it does not begin with the gzip magic 1f 8b): give the .gz file as the package installs it");
  }
  std::vector<uint8_t> out;
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) bad(path + ": zlib: inflateInit2 failed");
  z.next_in = const_cast<Bytef*>(in.data());
  z.avail_in = uInt(in.size());
  std::vector<uint8_t> chunk(1 << 16);
  int rc = Z_OK;
  for (;;) {
    z.next_out = chunk.data();
    z.avail_out = uInt(chunk.size());
    rc = inflate(&z, Z_NO_FLUSH);
    out.insert(out.end(), chunk.data(), chunk.data() + (chunk.size() - z.avail_out));
    if (rc == Z_STREAM_END) {
      // Another gzip member may follow (concatenated files are valid gzip).
      if (z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
        inflateReset(&z);
        continue;
      }
      break;
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended inside the stream
    if (rc != Z_OK) break;
  }
  const std::string zmsg = z.msg ? z.msg : "";
  inflateEnd(&z);
  if (rc == Z_STREAM_END) return out;
  if (rc == Z_OK || rc == Z_BUF_ERROR) {
    bad(path + ": truncated gzip file (the compressed data ends after " + std::to_string(out.size()) +
        " bytes of content): the file is incomplete; reinstall it or download it again");
  }
  bad(path + ": corrupt gzip data (" + (zmsg.empty() ? "zlib error " + std::to_string(rc) : zmsg) +
      "): reinstall the file or download it again");
}

OnnxTensor Dataset::batch(int64_t first, int64_t n, const std::string& tensor_name) const {
  if (first < 0 || n < 0 || first + n > count) {
    bad(name + " " + split + ": images [" + std::to_string(first) + ", " + std::to_string(first + n) +
        ") are not within its " + std::to_string(count) + " images");
  }
  OnnxTensor t;
  t.name = tensor_name;
  t.elem_type = kOnnxFloat;
  t.dims.push_back(n);
  t.dims.insert(t.dims.end(), image_dims.begin(), image_dims.end());
  const int64_t sz = image_size();
  t.floats.resize(size_t(n * sz));
  const uint8_t* p = pixels.data() + first * sz;
  for (size_t i = 0; i < t.floats.size(); ++i) t.floats[i] = float(p[i]) * scale;
  return t;
}

Dataset load_digits(const std::string& path, const std::string& split) {
  check_split("digits", split);
  const std::vector<uint8_t> raw = read_gzip_file(path, kDigitsHint);
  Dataset d;
  d.name = "digits";
  d.split = split;
  d.source = path;
  d.image_dims = {64};
  d.scale = 1.0f / 16;
  const std::string text(raw.begin(), raw.end());
  size_t pos = 0, line_no = 0;
  int64_t row = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    // A header: a first line that does not begin with a number.
    if (line_no == 1 && !(std::isdigit(static_cast<unsigned char>(line[0])) || line[0] == '-' || line[0] == '.')) continue;
    std::vector<double> v;
    size_t p = 0;
    while (p <= line.size()) {
      size_t q = line.find(',', p);
      if (q == std::string::npos) q = line.size();
      std::string field = line.substr(p, q - p);
      const size_t a = field.find_first_not_of(" \t"), b = field.find_last_not_of(" \t");
      field = a == std::string::npos ? "" : field.substr(a, b - a + 1);
      char* e = nullptr;
      const double x = std::strtod(field.c_str(), &e);
      if (field.empty() || *e != '\0' || !std::isfinite(x) || x != std::floor(x)) {
        bad(path + ": line " + std::to_string(line_no) + ": field " + std::to_string(v.size() + 1) + " '" + field +
            "' is not an integer: the digits file is 65 comma-separated integers a line (64 pixels 0..16, then the "
            "label 0..9)");
      }
      v.push_back(x);
      p = q + 1;
    }
    if (v.size() != 65) {
      bad(path + ": line " + std::to_string(line_no) + " has " + std::to_string(v.size()) +
          " values, not 65 (64 pixels, then the label): not the digits CSV, or a damaged copy");
    }
    for (int i = 0; i < 64; ++i) {
      if (v[i] < 0 || v[i] > 16) {
        bad(path + ": line " + std::to_string(line_no) + ": pixel " + std::to_string(i) + " is " +
            std::to_string(int64_t(v[i])) + ", out of the range 0..16");
      }
    }
    if (v[64] < 0 || v[64] > 9) {
      bad(path + ": line " + std::to_string(line_no) + ": label " + std::to_string(int64_t(v[64])) +
          " is out of the range 0..9");
    }
    const bool test = row % 5 == 4;
    if (test == (split == "test")) {
      for (int i = 0; i < 64; ++i) d.pixels.push_back(uint8_t(v[i]));
      d.labels.push_back(int(v[64]));
    }
    ++row;
  }
  d.count = int64_t(d.labels.size());
  if (d.count == 0) bad(path + ": no images in the " + split + " split (" + std::to_string(row) + " rows in the file)");
  return d;
}

Dataset load_fashion_mnist(const std::string& dir, const std::string& split) {
  check_split("fashion-mnist", split);
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    bad(dir + ": no such directory; " + kFashionHint);
  }
  const std::string stem = split == "test" ? "t10k" : "train";
  const std::string ipath = (fs::path(dir) / (stem + "-images-idx3-ubyte.gz")).string();
  const std::string lpath = (fs::path(dir) / (stem + "-labels-idx1-ubyte.gz")).string();
  const std::vector<uint8_t> im = read_gzip_file(ipath, kFashionHint);
  const std::vector<uint8_t> lb = read_gzip_file(lpath, kFashionHint);
  if (im.size() < 16) bad(ipath + ": truncated: " + std::to_string(im.size()) + " bytes, shorter than the 16-byte IDX header");
  if (be32(im, 0) != 0x00000803) {
    bad(ipath + ": bad IDX magic " + std::to_string(be32(im, 0)) +
        " (want 0x00000803, unsigned bytes in 3 dimensions): not an IDX image file");
  }
  if (lb.size() < 8) bad(lpath + ": truncated: " + std::to_string(lb.size()) + " bytes, shorter than the 8-byte IDX header");
  if (be32(lb, 0) != 0x00000801) {
    bad(lpath + ": bad IDX magic " + std::to_string(be32(lb, 0)) +
        " (want 0x00000801, unsigned bytes in 1 dimension): not an IDX label file");
  }
  const uint64_t n = be32(im, 4), rows = be32(im, 8), cols = be32(im, 12), nl = be32(lb, 4);
  if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096) {
    bad(ipath + ": images of " + std::to_string(rows) + "x" + std::to_string(cols) + " pixels: not a plausible IDX image file");
  }
  if (im.size() - 16 < n * rows * cols) {
    bad(ipath + ": truncated: the header says " + std::to_string(n) + " images of " + std::to_string(rows) + "x" +
        std::to_string(cols) + " (" + std::to_string(n * rows * cols) + " bytes), the file holds " +
        std::to_string(im.size() - 16));
  }
  if (lb.size() - 8 < nl) {
    bad(lpath + ": truncated: the header says " + std::to_string(nl) + " labels, the file holds " +
        std::to_string(lb.size() - 8));
  }
  if (n != nl) {
    bad(dir + ": " + std::to_string(n) + " images (" + ipath + ") but " + std::to_string(nl) + " labels (" + lpath +
        "): the two files do not belong together");
  }
  if (n == 0) bad(ipath + ": no images");
  Dataset d;
  d.name = "fashion-mnist";
  d.split = split;
  d.source = dir;
  d.count = int64_t(n);
  d.image_dims = {1, int64_t(rows), int64_t(cols)};
  d.scale = 1.0f / 255;
  d.pixels.assign(im.begin() + 16, im.begin() + 16 + std::ptrdiff_t(n * rows * cols));
  d.labels.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    const int l = lb[8 + i];
    if (l > 9) bad(lpath + ": label " + std::to_string(i) + " is " + std::to_string(l) + ", out of the range 0..9");
    d.labels[i] = l;
  }
  return d;
}

Dataset load_dataset(const std::string& name, const std::string& path, const std::string& split) {
  if (name == "digits") return load_digits(path.empty() ? kDigitsPath : path, split);
  if (name == "fashion-mnist" || name == "fashion_mnist") {
    return load_fashion_mnist(path.empty() ? kFashionMnistDir : path, split);
  }
  bad("unknown data set '" + name + "': give --dataset digits or --dataset fashion-mnist");
}

}  // namespace weft
