// serq-view: IR and results -> the station row or the plots (serq-view --help). The command line is in cli.cc.
#include "ir/cli.h"
#include "serq-view/cli.h"

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq-view");
  return serq::ViewMain(argc, argv);
}
