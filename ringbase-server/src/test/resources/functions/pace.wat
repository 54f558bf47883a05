;; map: fills 1 MiB of memory 150 times per record (a few ms, in both engines: memory.fill is one Java
;; fill), then emits the key with a u64le count of 1; combine adds two counts. The paced job of the
;; distributed-job tests, slow enough that a node can be stopped while every share still runs.
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
      (br_if $burn (i32.lt_u (local.get $i) (i32.const 150))))
    (i64.store (i32.const 0) (i64.const 1))
    (drop (call $emit (local.get $k) (local.get $kl) (i32.const 0) (i32.const 8)))
    (i32.const 0))
  (func (export "combine") (param $a i32) (param $al i32) (param $b i32) (param $bl i32) (result i32)
    (if (i32.or (i32.ne (local.get $al) (i32.const 8)) (i32.ne (local.get $bl) (i32.const 8)))
      (then (return (i32.const 7))))
    (i64.store (i32.const 0) (i64.add (i64.load (local.get $a)) (i64.load (local.get $b))))
    (drop (call $emit (i32.const 0) (i32.const 0) (i32.const 0) (i32.const 8)))
    (i32.const 0)))
