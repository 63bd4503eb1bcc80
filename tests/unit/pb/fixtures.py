#!/usr/bin/python3
"""fixtures.py - protocol buffers fixtures encoded by Google's Python
implementation (python3-protobuf), for tests/unit/test_pb_codec.c.

  fixtures.py make DESC OUTDIR     writes OUTDIR/<case>.bin for every case below
  fixtures.py check DESC OUTDIR    parses OUTDIR/<case>.out (what luamech
                                   encoded) and compares it with the case
Messages come from the descriptor set DESC (protoc --include_imports), no
generated code."""
import sys

from google.protobuf import descriptor_pb2, descriptor_pool, json_format, message_factory

CASES = {
    "scalars": ("lmtest.All", {
        "d": 1.5, "f": -2.25, "i64": "-9007199254740993", "u64": "18446744073709551615", "i32": -7,
        "fx64": "9223372036854775813", "fx32": 4000000000, "b": True, "s": "h\u00e9llo", "by": "AP8=",
        "u32": 4294967295, "color": "GREEN", "sfx32": -3, "sfx64": "-4", "si32": -2147483648,
        "si64": "-9223372036854775808", "inner": {"name": "in", "n": 42}}),
    "repeated": ("lmtest.All", {
        "packed_i32": [1, -2, 300], "unpacked_i32": [5, 6], "names": ["a", "", "c"],
        "inners": [{"name": "x", "n": 1}, {}], "packed_d": [0.5, -1], "packed_si64": ["-1", "1"]}),
    "maps": ("lmtest.All", {"counts": {"a": 1, "b": 2}, "by_id": {"7": {"name": "seven"}}}),
    "oneof_wkt": ("lmtest.All", {"obj": {"n": 3}, "at": "2023-11-14T22:13:20.000000005Z",
                                 "wrapped": -1, "opt": 0}),
    # explicit presence at its default (written), implicit (left out), a map entry of defaults (key and value)
    "presence": ("lmtest.All", {"opt": 0, "text": "", "counts": {"": 0}, "inner": {}, "packed_i32": [0],
                                "i32": 0, "s": ""}),
    "nested": ("lmtest.All", {"child": {"child": {"child": {"i32": 3}}}}),
    "unknown": ("lmtest.AllPlus", {"d": 2.5, "i32": 9, "s": "kept", "x_varint": "300", "x_len": "skip me",
                                   "x_fx32": 7, "x_fx64": "8", "x_packed": [1, 2, 3]}),
}


def classes(desc):
    fds = descriptor_pb2.FileDescriptorSet()
    with open(desc, "rb") as f:
        fds.ParseFromString(f.read())
    pool = descriptor_pool.DescriptorPool()
    for fd in fds.file:
        pool.Add(fd)
    factory = message_factory.MessageFactory(pool)
    return lambda name: factory.GetPrototype(pool.FindMessageTypeByName(name))


def main():
    mode, desc, out = sys.argv[1:4]
    cls = classes(desc)
    bad = 0
    for case, (typ, value) in CASES.items():
        want = json_format.ParseDict(value, cls(typ)())
        if mode == "make":
            with open(f"{out}/{case}.bin", "wb") as f:
                f.write(want.SerializeToString())
            continue
        if case == "unknown":
            continue
        got = cls(typ)()
        with open(f"{out}/{case}.out", "rb") as f:
            got.ParseFromString(f.read())
        if got != want:
            print(f"{case}: luamech encoded {got} instead of {want}")
            bad = 1
    sys.exit(bad)


if __name__ == "__main__":
    main()
