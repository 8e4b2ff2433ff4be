// weft/datasets.hpp: the image classification data sets `weft eval` measures networks on
// (docs/model-runtime.md, "Evaluating a network: weft eval"), read from Debian's packages:
//
//   digits         python3-sklearn: sklearn/datasets/data/digits.csv.gz, 1797 8x8 images of
//                  handwritten digits, pixels 0..16; gzip CSV, one image a line: 64 pixel values
//                  then the label 0..9. Split: test = the rows whose index % 5 == 4 (359), train
//                  = the others (1438). Model input float32 [N, 64], pixel / 16.
//   fashion-mnist  dataset-fashion-mnist: /usr/share/datasets/fashion-mnist/
//                  {train,t10k}-{images-idx3,labels-idx1}-ubyte.gz, 28x28 grey images of clothes,
//                  labels 0..9; gzipped IDX files. Split: test = t10k (10000), train = train
//                  (60000). Model input float32 [N, 1, 28, 28], pixel / 255.
//
// Every failure is weft::Error(Errc::kBadArgument) whose message names the file and what to fix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weft/onnx_types.hpp"

namespace weft {

inline constexpr const char* kDigitsPath = "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz";
inline constexpr const char* kFashionMnistDir = "/usr/share/datasets/fashion-mnist";

// One split of a data set, in memory.
struct Dataset {
  std::string name;                // "digits", "fashion-mnist"
  std::string split;               // "test", "train"
  std::string source;              // the file (digits) or directory (fashion-mnist) read
  int64_t count = 0;               // images
  std::vector<int64_t> image_dims; // of one image as the model takes it: {64}, {1, 28, 28}
  std::vector<uint8_t> pixels;     // count * image_size() raw pixel values, image after image
  std::vector<int> labels;         // count classes, 0 .. classes - 1
  int classes = 10;
  float scale = 1;                 // model input = pixel * scale (1/16, 1/255)

  int64_t image_size() const {
    int64_t n = 1;
    for (int64_t d : image_dims) n *= d;
    return n;
  }
  // The model input for images [first, first + n): float32 [n, image_dims...], pixel * scale.
  // BAD_ARGUMENT when the range is not within the split.
  OnnxTensor batch(int64_t first, int64_t n, const std::string& name = "") const;
};

// The digits CSV (gzip; a header line, when there is one, is skipped). `split` is "test" or
// "train".
Dataset load_digits(const std::string& path = kDigitsPath, const std::string& split = "test");

// Fashion-MNIST from `dir`, which holds the four .gz IDX files (t10k-* for "test", train-* for
// "train").
Dataset load_fashion_mnist(const std::string& dir = kFashionMnistDir, const std::string& split = "test");

// By name ("digits", "fashion-mnist"); an empty `path` is the default. BAD_ARGUMENT for another
// name or split.
Dataset load_dataset(const std::string& name, const std::string& path, const std::string& split);

// The whole decompressed content of a gzip file. BAD_ARGUMENT when the file is missing (`missing_hint`
// is appended to the message: which package to install), is not gzip, or is truncated or corrupt.
std::vector<uint8_t> read_gzip_file(const std::string& path, const std::string& missing_hint = "");

}  // namespace weft
