// A plain main for a fuzz target built without libFuzzer (tests/CMakeLists.txt): runs the target
// once on each file named on the command line, its seed corpus in the suite. The gcc build so
// links every target's own source list, and a seed that crashes a target fails a test.
#include <cstddef>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  for (int i = 1; i < argc; i++) {
    std::ifstream in(argv[i], std::ios::binary);
    if (!in) {
      std::cerr << "cannot read " << argv[i] << "\n";
      return 2;
    }
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  }
  std::cout << "replayed " << argc - 1 << " inputs\n";
  return argc > 1 ? 0 : 2;
}
