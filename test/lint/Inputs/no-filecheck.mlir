// RUN: warpforge-opt %s
// CHECK: this directive is never checked
