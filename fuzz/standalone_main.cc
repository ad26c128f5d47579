// The main of a fuzz target outside --config=fuzz: runs
// LLVMFuzzerTestOneInput once on each file named on the command line (or
// each file of a directory named there), so that `bazel test //...` builds
// every target with the ordinary compiler and replays the seed corpora
// (//fuzz:corpus_test). Under --config=fuzz libFuzzer's own main is used.
#include <dirent.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int RunFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "cannot open %s\n", path.c_str());
    return 1;
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  std::string bytes = buffer.str();
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int files = 0;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // libFuzzer flags: ignored here
    struct stat st;
    if (stat(arg.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
      DIR* dir = opendir(arg.c_str());
      std::vector<std::string> names;
      while (dirent* e = dir ? readdir(dir) : nullptr) {
        if (e->d_name[0] != '.') names.push_back(arg + "/" + e->d_name);
      }
      if (dir) closedir(dir);
      for (const std::string& name : names) {
        if (RunFile(name) != 0) return 1;
        ++files;
      }
    } else {
      if (RunFile(arg) != 0) return 1;
      ++files;
    }
  }
  std::printf("ran %d inputs\n", files);
  return 0;
}
