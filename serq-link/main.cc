// serq-link: IR -> linked IR, or every static error (serq-link --help). The command line is in cli.cc.
#include "ir/cli.h"
#include "serq-link/cli.h"

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq-link");
  return serq::LinkMain(argc, argv);
}
