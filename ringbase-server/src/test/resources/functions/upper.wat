;; update: upper-cases ASCII letters of the value in place; unchanged if it has none; deletes the value "delete-me"
(module
  (import "ringbase" "emit" (func $emit (param i32 i32 i32 i32) (result i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "delete-me")
  (func (export "alloc") (param $n i32) (result i32)
    (local $need i32)
    (local.set $need (i32.add (i32.const 1024) (local.get $n)))
    (block $ok
      (br_if $ok (i32.le_u (local.get $need) (i32.shl (memory.size) (i32.const 16))))
      (br_if $ok (i32.ne (memory.grow (i32.sub (i32.shr_u (i32.add (local.get $need) (i32.const 65535)) (i32.const 16)) (memory.size))) (i32.const -1)))
      (return (i32.const 0)))
    (i32.const 1024))
  (func (export "ringbase_abi_version") (result i32) (i32.const 1))
  (func (export "update") (param $k i32) (param $kl i32) (param $v i32) (param $vl i32) (param $m i32) (result i32)
    (local $i i32) (local $c i32) (local $changed i32)
    (if (i32.eq (local.get $vl) (i32.const 9))
      (then (if (i64.eq (i64.load (local.get $v)) (i64.load (i32.const 16)))
        (then (if (i32.eq (i32.load8_u (i32.add (local.get $v) (i32.const 8))) (i32.load8_u (i32.const 24)))
          (then (return (i32.const 2))))))))
    (block $done
      (loop $next
        (br_if $done (i32.ge_u (local.get $i) (local.get $vl)))
        (local.set $c (i32.load8_u (i32.add (local.get $v) (local.get $i))))
        (if (i32.and (i32.ge_u (local.get $c) (i32.const 97)) (i32.le_u (local.get $c) (i32.const 122)))
          (then
            (i32.store8 (i32.add (local.get $v) (local.get $i)) (i32.sub (local.get $c) (i32.const 32)))
            (local.set $changed (i32.const 1))))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $next)))
    (if (i32.eqz (local.get $changed)) (then (return (i32.const 0))))
    (drop (call $emit (local.get $k) (local.get $kl) (local.get $v) (local.get $vl)))
    (i32.const 1)))
