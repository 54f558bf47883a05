;; map: a filter that keeps the records whose value starts with the byte 'a'
(module
  (import "ringbase" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (import "ringbase" "log" (func $log (param i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "filter ran")
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
    (if (i32.and (i32.gt_u (local.get $vl) (i32.const 0)) (i32.eq (i32.load8_u (local.get $v)) (i32.const 97)))
      (then (drop (call $emit (local.get $k) (local.get $kl) (local.get $v) (local.get $vl)))))
    (i32.const 0)))
