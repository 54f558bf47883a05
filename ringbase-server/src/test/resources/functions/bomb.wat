;; map: grows memory a page at a time until refused, then traps; and emits without end on key "flood"
(module
  (import "ringbase" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 1024) (local.get $n)))
    (block $ok
      (br_if $ok (i32.le_u (local.get $need) (i32.shl (memory.size) (i32.const 16))))
      (br_if $ok (i32.ne (memory.grow (i32.sub (i32.shr_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 16)) (memory.size))) (i32.const -1)))
      (return (i32.const 0)))
    (i32.const 1024))
  (func (export "ringbase_abi_version") (result i32) (i32.const 1))
  (func (export "map") (param $k i32) (param $kl i32) (param $v i32) (param $vl i32) (param $m i32) (result i32)
    (if (i32.eq (local.get $kl) (i32.const 5))
      (then (loop $again
        (drop (call $emit (i32.const 0) (i32.const 1) (i32.const 0) (i32.const 60000)))
        (br $again))))
    (block $refused
      (loop $grow
        (br_if $refused (i32.eq (memory.grow (i32.const 1)) (i32.const -1)))
        (br $grow)))
    unreachable))
