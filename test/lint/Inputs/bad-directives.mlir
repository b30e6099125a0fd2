// RUN: warpforge-opt %s | FileCheck %s --check-prefixes=CHECK,UNUSED
// A deliberately broken test for check_filecheck.py's own test.

// CHECK-LABEL: tile.func public @a
// CHECK-NEXT %0 = tile.get_program_id x
// CHECK-LABLE: tile.func public @b
// CHECK : tile.return
// CHECK-COUNT-2: arith.addf
