// serq-sim: linked IR -> results (serq-sim --help). The command line is in cli.cc.
#include "ir/cli.h"
#include "serq-sim/cli.h"

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq-sim");
  return serq::SimMain(argc, argv);
}
