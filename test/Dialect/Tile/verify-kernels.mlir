// RUN: warpforge-opt %s -split-input-file -verify-diagnostics -tile-verify-kernels

// A valid module: kernels, device functions called along several paths
// (a diamond is not recursion), and an unused private declaration.
tile.func private @leaf(%a: f32) -> f32 {
  tile.return %a : f32
}
tile.func private @left(%a: f32) -> f32 {
  %0 = tile.call @leaf(%a) : (f32) -> f32
  tile.return %0 : f32
}
tile.func private @right(%a: f32) -> f32 {
  %0 = tile.call @leaf(%a) : (f32) -> f32
  %1 = tile.call @leaf(%0) : (f32) -> f32
  tile.return %1 : f32
}
tile.func private @unused_declaration(f32) -> f32
tile.func public @kernel(%p: !tile.ptr<f32> {tile.divisibility = 16 : i32}, %a: f32) {
  %0 = tile.call @left(%a) : (f32) -> f32
  %1 = tile.call @right(%0) : (f32) -> f32
  tile.store %p, %1 : !tile.ptr<f32>
  tile.return
}
tile.func public @second_kernel(%p: !tile.ptr<f32>, %a: f32) {
  %0 = tile.call @leaf(%a) : (f32) -> f32
  tile.store %p, %0 : !tile.ptr<f32>
  tile.return
}

// -----

// expected-error@+1 {{kernel @returns_value returns values; kernels write results through pointers (make it private to call it as a device function)}}
tile.func public @returns_value(%a: f32) -> f32 {
  tile.return %a : f32
}

// -----

// expected-error@+1 {{kernel @declared_kernel has no body}}
tile.func public @declared_kernel(!tile.ptr<f32>)

// -----

// expected-error@+1 {{module has no kernel (a public tile.func)}}
module {
  tile.func private @device_only(%a: f32) -> f32 {
    tile.return %a : f32
  }
}

// -----

// expected-error@+1 {{module has no kernel (a public tile.func)}}
module {
}

// -----

tile.func public @callee_kernel() {
  tile.return
}
tile.func public @calls_kernel() {
  // expected-error@+1 {{calls kernel @callee_kernel; only private device functions can be called}}
  tile.call @callee_kernel() : () -> ()
  tile.return
}

// -----

tile.func private @no_body(f32) -> f32
tile.func public @calls_declaration(%a: f32) {
  // expected-error@+1 {{calls @no_body, which has no body to inline}}
  %0 = tile.call @no_body(%a) : (f32) -> f32
  tile.return
}

// -----

tile.func private @recursive(%a: f32) -> f32 {
  // expected-error@+1 {{@recursive calls itself (recursion cannot be inlined)}}
  %0 = tile.call @recursive(%a) : (f32) -> f32
  tile.return %0 : f32
}
tile.func public @calls_recursive(%a: f32) {
  %0 = tile.call @recursive(%a) : (f32) -> f32
  tile.return
}

// -----

// Recursion inside a nested region is found too.
tile.func private @recursive_in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error@+1 {{@recursive_in_loop calls itself (recursion cannot be inlined)}}
    tile.call @recursive_in_loop(%i) : (index) -> ()
  }
  tile.return
}
tile.func public @calls_recursive_in_loop(%n: index) {
  tile.call @recursive_in_loop(%n) : (index) -> ()
  tile.return
}

// -----

// A cycle is reported once, at the call that closes it, with its path.
tile.func private @ping(%a: f32) -> f32 {
  %0 = tile.call @pong(%a) : (f32) -> f32
  tile.return %0 : f32
}
tile.func private @pong(%a: f32) -> f32 {
  // expected-error@+1 {{call to @ping closes the recursive cycle @ping -> @pong -> @ping (recursion cannot be inlined)}}
  %0 = tile.call @ping(%a) : (f32) -> f32
  tile.return %0 : f32
}
tile.func public @calls_ping(%a: f32) {
  %0 = tile.call @ping(%a) : (f32) -> f32
  tile.return
}

// -----

// A kernel calling itself breaks two rules.
tile.func public @self_calling_kernel() {
  // expected-error@+2 {{calls kernel @self_calling_kernel; only private device functions can be called}}
  // expected-error@+1 {{@self_calling_kernel calls itself (recursion cannot be inlined)}}
  tile.call @self_calling_kernel() : () -> ()
  tile.return
}
