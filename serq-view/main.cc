// serq-view: IR and results -> the station row or the plots (serq-view --help). The command line is in cli.cc.
#include "serq-view/cli.h"

int main(int argc, char** argv) { return serq::ViewMain(argc, argv); }
