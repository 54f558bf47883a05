// update: upper-cases the ASCII letters of each value in place; leaves values without any unchanged.
import { emit, allocate, UNCHANGED, REPLACE } from "./ringbase";

export function ringbase_abi_version(): i32 { return 1; }
export function alloc(size: i32): usize { return allocate(size); }

export function update(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32, metaPtr: usize): i32 {
  let changed = false;
  for (let i = 0; i < valLen; i++) {
    const p = valPtr + <usize>i;
    const c = load<u8>(p);
    if (c >= 0x61 && c <= 0x7a) {
      store<u8>(p, c - 0x20);
      changed = true;
    }
  }
  if (!changed) return UNCHANGED;
  emit(keyPtr, keyLen, valPtr, valLen);
  return REPLACE;
}
