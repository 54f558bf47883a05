;; map: fills 1 MiB of memory 3000 times per record (about 0.1 s), then emits it (the cancellation tests'
;; job). The time goes to memory.fill, one instruction that both engines run as the same Java fill, so the
;; record takes about as long in the interpreter as in the compiler (a plain counting loop runs hundreds of
;; times faster compiled).
(module
  (import "ringbase" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 33)
  (func (export "alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 1024) (local.get $n)))
    (block $ok
      (br_if $ok (i32.le_u (local.get $need) (i32.const 0x100000)))
      (return (i32.const 0)))
    (i32.const 1024))
  (func (export "ringbase_abi_version") (result i32) (i32.const 1))
  (func (export "map") (param $k i32) (param $kl i32) (param $v i32) (param $vl i32) (param $m i32) (result i32)
    (local $i i32)
    (loop $burn
      (memory.fill (i32.const 0x100000) (local.get $i) (i32.const 0x100000))
      (local.set $i (i32.add (local.get $i) (i32.const 1)))
      (br_if $burn (i32.lt_u (local.get $i) (i32.const 3000))))
    (drop (call $emit (local.get $k) (local.get $kl) (local.get $v) (local.get $vl)))
    (i32.const 0)))
