// map: keeps the records whose value contains the bytes "ERROR" (a log filter).
import { emit, allocate } from "./ringbase";

export function ringbase_abi_version(): i32 { return 1; }
export function alloc(size: i32): usize { return allocate(size); }

const NEEDLE = "ERROR";

export function map(keyPtr: usize, keyLen: i32, valPtr: usize, valLen: i32, metaPtr: usize): i32 {
  const n = NEEDLE.length;
  for (let i = 0; i + n <= valLen; i++) {
    let match = true;
    for (let j = 0; j < n; j++) {
      if (<i32>load<u8>(valPtr + <usize>(i + j)) != NEEDLE.charCodeAt(j)) { match = false; break; }
    }
    if (match) {
      emit(keyPtr, keyLen, valPtr, valLen);
      break;
    }
  }
  return 0;
}
