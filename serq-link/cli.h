// serq-link's command line: its flags, reading its input, calling the library
// and writing the output, with the toolchain's exit codes (ir/cli.h). The
// binary's main.cc only calls it.
#ifndef SERQ_LINK_CLI_H_
#define SERQ_LINK_CLI_H_

namespace serq {

int LinkMain(int argc, char** argv);

}  // namespace serq

#endif  // SERQ_LINK_CLI_H_
