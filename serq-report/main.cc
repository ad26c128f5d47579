// serq-report: results -> the report (serq-report --help). The command line is in cli.cc.
#include "ir/cli.h"
#include "serq-report/cli.h"

int main(int argc, char** argv) {
  serq::ExitOnOutOfMemory("serq-report");
  return serq::ReportMain(argc, argv);
}
