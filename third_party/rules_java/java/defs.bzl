# Forwarders to Bazel's native Java rules: @bazel_tools//tools/jdk loads these
# even for C++-only builds, and the real rules_java cannot be downloaded here.
def java_import(**kw): native.java_import(**kw)
def java_runtime(**kw): native.java_runtime(**kw)
def java_toolchain(**kw): native.java_toolchain(**kw)
def java_library(**kw): native.java_library(**kw)
def java_binary(**kw): native.java_binary(**kw)
