// sim:// and pcie-sim:// — find and load the simulator plugin for the requested array
// configuration.
//
// Each Verilated configuration is its own shared object (Verilator's DPI exports are global
// symbols, so one configuration per object, loaded RTLD_LOCAL): weft_sim_<R>x<C>.so (weft_top
// behind AXI models) and weft_pcie_<R>x<C>.so (weft_pcie_top behind the root-complex model);
// a build with memory ECC (URI option ecc=1) is weft_sim_<R>x<C>_ecc.so.
// Searched in $WEFT_PLUGIN_DIR, then beside libweft and in its weft/ subdirectory (the install
// layout).
#include <dlfcn.h>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "device_impl.hpp"
#include "weft/error.hpp"

namespace weft::detail {
namespace {

std::vector<std::filesystem::path> plugin_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (const char* env = std::getenv("WEFT_PLUGIN_DIR"); env && *env) dirs.emplace_back(env);
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&plugin_dirs), &info) && info.dli_fname) {
    const auto self = std::filesystem::path(info.dli_fname).parent_path();
    dirs.push_back(self);
    dirs.push_back(self / "weft");
  }
#ifdef WEFT_PLUGIN_BUILD_DIR
  dirs.emplace_back(WEFT_PLUGIN_BUILD_DIR);
#endif
  return dirs;
}

}  // namespace

static std::unique_ptr<Backend> load_plugin(const std::string& scheme, const std::string& prefix,
                                            const Options& opts) {
  std::string array = "16x16";
  if (auto it = opts.find("array"); it != opts.end()) array = it->second;
  // The value becomes part of a file name: digits 'x' digits only, nothing that walks the file
  // system (the plugin checks the numbers themselves).
  const auto x = array.find('x');
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.size() <= 3 && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (x == std::string::npos || !digits(array.substr(0, x)) || !digits(array.substr(x + 1))) {
    throw Error(Errc::kBadUri, scheme + "://: option array=" + array +
                                   ": expected ROWSxCOLS, e.g. 16x16");
  }
  // ecc=1: the configuration built with memory ECC (its plugin checks the value too).
  bool ecc = false;
  if (auto it = opts.find("ecc"); it != opts.end()) ecc = it->second == "1";
  const std::string build = array + (ecc ? "_ecc" : "");
  const std::string file = prefix + build + ".so";
  std::set<std::string> available;
  std::string searched;
  for (const auto& dir : plugin_dirs()) {
    std::error_code ec;
    searched += (searched.empty() ? "" : ", ") + dir.string();
    if (!std::filesystem::is_directory(dir, ec)) continue;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
      const std::string n = e.path().filename().string();
      if (n.rfind(prefix, 0) == 0 && n.size() > prefix.size() + 3 &&
          n.substr(n.size() - 3) == ".so") {
        available.insert(n.substr(prefix.size(), n.size() - prefix.size() - 3));
      }
    }
    const auto path = dir / file;
    if (!std::filesystem::exists(path, ec)) continue;
    void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
      throw Error(Errc::kNoDevice, scheme + "://: cannot load " + path.string() + ": " + dlerror());
    }
    auto create = reinterpret_cast<CreateBackendFn>(dlsym(h, kCreateBackendSymbol));
    if (!create) {
      throw Error(Errc::kNoDevice, scheme + "://: " + path.string() + " is not a Weft simulator plugin");
    }
    char err[1024] = {0};
    Backend* be = create(&opts, err, sizeof err);
    if (!be) throw Error(Errc::kBadUri, scheme + "://: " + err);
    // The plugin stays loaded for the life of the process (Verilator keeps static state).
    return std::unique_ptr<Backend>(be);
  }
  std::string list;
  for (const auto& a : available) list += (list.empty() ? "" : ", ") + a;
  // How to get the missing one: each plugin is one configuration of the CMake cache variable
  // (sw/driver/CMakeLists.txt), installed to <libdir>/weft beside libweft.
  const std::string var = scheme == "sim" ? "WEFT_SIM_CONFIGS" : "WEFT_PCIE_CONFIGS";
  throw Error(Errc::kBadUri,
              scheme + "://: no simulator build for array=" + array + (ecc ? " with ecc=1" : "") +
                  " (" + file + "); available: " + (list.empty() ? std::string("none") : list) +
                  ". Build one with the CMake cache variable " + var +
                  " (RxC:AccDepth[:ecc], ';'-separated), e.g. cmake -B build -D" + var +
                  "=\"16x16:512;" + array + ":512" + (ecc ? ":ecc" : "") +
                  "\" && cmake --build build; cmake --install build puts the plugins in "
                  "<prefix>/lib/weft, beside libweft. Searched " +
                  searched + " (WEFT_PLUGIN_DIR adds a directory holding " + prefix + "*.so)");
}

std::unique_ptr<Backend> make_sim_backend(const Options& opts) {
  return load_plugin("sim", "weft_sim_", opts);
}

std::unique_ptr<Backend> make_pcie_backend(const Options& opts) {
  return load_plugin("pcie-sim", "weft_pcie_", opts);
}

}  // namespace weft::detail
