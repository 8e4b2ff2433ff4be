// The data set readers of `weft eval` (weft/datasets.hpp): small digits CSV and IDX files the test
// writes (gzip by zlib), good and damaged, and Debian's real files when they are installed.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "weft/datasets.hpp"
#include "weft/error.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch() {
  const fs::path d = fs::path(testing::TempDir()) / ("weft_datasets_" + std::to_string(getpid()) + "_" +
                                                      testing::UnitTest::GetInstance()->current_test_info()->name());
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write_gz(const fs::path& p, const std::vector<uint8_t>& bytes) {
  gzFile f = gzopen(p.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  if (!bytes.empty()) {
    ASSERT_EQ(gzwrite(f, bytes.data(), unsigned(bytes.size())), int(bytes.size()));
  }
  gzclose(f);
}
void write_gz(const fs::path& p, const std::string& s) { write_gz(p, std::vector<uint8_t>(s.begin(), s.end())); }

std::vector<uint8_t> read_raw(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
void write_raw(const fs::path& p, const std::vector<uint8_t>& b) {
  std::ofstream f(p, std::ios::binary);
  f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

void put32(std::vector<uint8_t>& b, uint32_t v) {
  for (int s = 24; s >= 0; s -= 8) b.push_back(uint8_t(v >> s));
}
std::vector<uint8_t> idx_images(uint32_t n, uint32_t r, uint32_t c, uint32_t magic = 0x803) {
  std::vector<uint8_t> b;
  put32(b, magic), put32(b, n), put32(b, r), put32(b, c);
  for (uint32_t i = 0; i < n * r * c; ++i) b.push_back(uint8_t(i * 7 + 3));
  return b;
}
std::vector<uint8_t> idx_labels(uint32_t n, uint32_t magic = 0x801) {
  std::vector<uint8_t> b;
  put32(b, magic), put32(b, n);
  for (uint32_t i = 0; i < n; ++i) b.push_back(uint8_t(i % 10));
  return b;
}

// A digits CSV of `rows` rows: row r's pixels are (r + i) % 17, its label r % 10.
std::string digits_csv(int rows, bool header) {
  std::string s = header ? "pixel_0,...,target\n" : "";
  for (int r = 0; r < rows; ++r) {
    for (int i = 0; i < 64; ++i) s += std::to_string((r + i) % 17) + ",";
    s += std::to_string(r % 10) + "\n";
  }
  return s;
}

// The message of the weft::Error (BAD_ARGUMENT) that `f` throws; "" and a failure otherwise.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const weft::Error& e) {
    EXPECT_EQ(e.code(), weft::Errc::kBadArgument) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "no weft::Error";
  return "";
}

#define EXPECT_HAS(msg, phrase) EXPECT_NE((msg).find(phrase), std::string::npos) << "expected '" << (phrase) << "' in: " << (msg)

TEST(Datasets, DigitsCsvSplitsByIndexModFive) {
  const fs::path d = scratch();
  for (bool header : {false, true}) {
    write_gz(d / "digits.csv.gz", digits_csv(12, header));
    const weft::Dataset te = weft::load_digits((d / "digits.csv.gz").string(), "test");
    ASSERT_EQ(te.count, 2);  // rows 4 and 9
    EXPECT_EQ(te.labels, (std::vector<int>{4, 9}));
    EXPECT_EQ(te.image_dims, (std::vector<int64_t>{64}));
    EXPECT_EQ(te.pixels[0], 4);
    EXPECT_EQ(te.pixels[64 + 1], 10);
    const weft::Dataset tr = weft::load_digits((d / "digits.csv.gz").string(), "train");
    ASSERT_EQ(tr.count, 10);
    EXPECT_EQ(tr.labels[4], 5);
    const weft::OnnxTensor t = te.batch(1, 1, "x");
    EXPECT_EQ(t.name, "x");
    EXPECT_EQ(t.elem_type, weft::kOnnxFloat);
    EXPECT_EQ(t.dims, (std::vector<int64_t>{1, 64}));
    EXPECT_FLOAT_EQ(t.floats[0], 9.0f / 16);
    EXPECT_FLOAT_EQ(t.floats[8], 0.0f);  // (9 + 8) % 17
  }
}

TEST(Datasets, DigitsBadFiles) {
  const fs::path d = scratch();
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "none.csv.gz").string()); }), "python3-sklearn");
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "none.csv.gz").string()); }), "--data");
  std::ofstream(d / "plain.csv") << digits_csv(5, false);
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "plain.csv").string()); }), "not a gzip file");
  std::string s = digits_csv(5, false);
  s.replace(s.find(",16,"), 4, ",17,");
  write_gz(d / "pix.csv.gz", s);
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "pix.csv.gz").string()); }), "out of the range 0..16");
  write_gz(d / "short.csv.gz", "1,2,3\n");
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "short.csv.gz").string()); }), "not 65");
  std::string lab = digits_csv(5, false);
  lab.replace(lab.rfind(",4\n"), 3, ",12\n");
  write_gz(d / "lab.csv.gz", lab);
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "lab.csv.gz").string()); }), "label 12 is out of the range");
  write_gz(d / "text.csv.gz", digits_csv(2, false) + "a,b\n");
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "text.csv.gz").string()); }), "not an integer");
  EXPECT_HAS(error_of([&] { weft::load_digits((d / "text.csv.gz").string(), "validation"); }), "--split test");
  EXPECT_HAS(error_of([&] { weft::load_dataset("cifar", "", "test"); }), "--dataset digits or --dataset fashion-mnist");
}

TEST(Datasets, GzipTruncatedAndCorrupt) {
  const fs::path d = scratch();
  write_gz(d / "f.gz", digits_csv(40, false));
  std::vector<uint8_t> b = read_raw(d / "f.gz");
  ASSERT_GT(b.size(), 100u);
  write_raw(d / "cut.gz", std::vector<uint8_t>(b.begin(), b.begin() + std::ptrdiff_t(b.size() / 2)));
  EXPECT_HAS(error_of([&] { weft::read_gzip_file((d / "cut.gz").string()); }), "truncated gzip");
  std::vector<uint8_t> bad = b;
  for (size_t i = 20; i < 40; ++i) bad[i] ^= 0x5a;
  write_raw(d / "bad.gz", bad);
  const std::string m = error_of([&] { weft::read_gzip_file((d / "bad.gz").string()); });
  EXPECT_TRUE(m.find("corrupt") != std::string::npos || m.find("truncated") != std::string::npos) << m;
  EXPECT_EQ(weft::read_gzip_file((d / "f.gz").string()).size(), digits_csv(40, false).size());
}

TEST(Datasets, FashionMnistIdx) {
  const fs::path d = scratch();
  write_gz(d / "t10k-images-idx3-ubyte.gz", idx_images(5, 28, 28));
  write_gz(d / "t10k-labels-idx1-ubyte.gz", idx_labels(5));
  const weft::Dataset ds = weft::load_fashion_mnist(d.string(), "test");
  EXPECT_EQ(ds.name, "fashion-mnist");
  ASSERT_EQ(ds.count, 5);
  EXPECT_EQ(ds.image_dims, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(ds.labels, (std::vector<int>{0, 1, 2, 3, 4}));
  const weft::OnnxTensor t = ds.batch(2, 3);
  EXPECT_EQ(t.dims, (std::vector<int64_t>{3, 1, 28, 28}));
  EXPECT_FLOAT_EQ(t.floats[0], float(uint8_t(2 * 784 * 7 + 3)) / 255);
  EXPECT_HAS(error_of([&] { ds.batch(4, 2); }), "not within its 5 images");
  // The train split's files are missing.
  const std::string miss = error_of([&] { weft::load_fashion_mnist(d.string(), "train"); });
  EXPECT_HAS(miss, "train-images-idx3-ubyte.gz: no such file");
  EXPECT_HAS(miss, "dataset-fashion-mnist");
  EXPECT_HAS(error_of([&] { weft::load_fashion_mnist((d / "nope").string()); }), "dataset-fashion-mnist");
}

TEST(Datasets, FashionMnistDamaged) {
  const fs::path d = scratch();
  const auto expect = [&](const std::vector<uint8_t>& im, const std::vector<uint8_t>& lb, const std::string& phrase) {
    write_gz(d / "t10k-images-idx3-ubyte.gz", im);
    write_gz(d / "t10k-labels-idx1-ubyte.gz", lb);
    EXPECT_HAS(error_of([&] { weft::load_fashion_mnist(d.string()); }), phrase);
  };
  expect(idx_images(4, 28, 28, 0x801), idx_labels(4), "bad IDX magic");
  expect(idx_images(4, 28, 28), idx_labels(4, 0x803), "bad IDX magic");
  std::vector<uint8_t> cut = idx_images(4, 28, 28);
  cut.resize(cut.size() - 100);
  expect(cut, idx_labels(4), "truncated");
  std::vector<uint8_t> lcut = idx_labels(4);
  lcut.pop_back();
  expect(idx_images(4, 28, 28), lcut, "truncated");
  expect(idx_images(4, 28, 28), idx_labels(5), "4 images");
  std::vector<uint8_t> lbad = idx_labels(4);
  lbad.back() = 10;
  expect(idx_images(4, 28, 28), lbad, "out of the range 0..9");
  expect({1, 2, 3}, idx_labels(4), "truncated");
  // Not gzip at all.
  write_raw(d / "t10k-images-idx3-ubyte.gz", idx_images(4, 28, 28));
  EXPECT_HAS(error_of([&] { weft::load_fashion_mnist(d.string()); }), "not a gzip file");
}

TEST(Datasets, DebianDigits) {
  if (!fs::exists(weft::kDigitsPath)) GTEST_SKIP() << weft::kDigitsPath << " not installed (python3-sklearn)";
  const weft::Dataset te = weft::load_digits();
  const weft::Dataset tr = weft::load_digits(weft::kDigitsPath, "train");
  EXPECT_EQ(te.count + tr.count, 1797);
  EXPECT_EQ(te.count, 359);  // rows 4, 9, ..., 1794
  EXPECT_EQ(te.labels[0], 4);
  EXPECT_EQ(tr.labels[0], 0);
  for (int l : te.labels) ASSERT_TRUE(l >= 0 && l <= 9);
  for (uint8_t p : te.pixels) ASSERT_LE(p, 16);
}

TEST(Datasets, DebianFashionMnist) {
  if (!fs::exists(fs::path(weft::kFashionMnistDir) / "t10k-images-idx3-ubyte.gz")) {
    GTEST_SKIP() << weft::kFashionMnistDir << " not installed (dataset-fashion-mnist)";
  }
  const weft::Dataset te = weft::load_fashion_mnist();
  EXPECT_EQ(te.count, 10000);
  EXPECT_EQ(te.image_dims, (std::vector<int64_t>{1, 28, 28}));
  EXPECT_EQ(te.labels[0], 9);  // the first test image is an ankle boot
  std::vector<int> per(10);
  for (int l : te.labels) {
    ASSERT_TRUE(l >= 0 && l <= 9);
    ++per[size_t(l)];
  }
  for (int c : per) EXPECT_EQ(c, 1000);
}

}  // namespace
