// serq-sim: linked IR -> results (serq-sim --help). The command line is in cli.cc.
#include "serq-sim/cli.h"

int main(int argc, char** argv) { return serq::SimMain(argc, argv); }
