// serq-report: results -> the report (serq-report --help). The command line is in cli.cc.
#include "serq-report/cli.h"

int main(int argc, char** argv) { return serq::ReportMain(argc, argv); }
