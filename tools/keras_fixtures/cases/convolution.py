"""Convolution and normalization cases: Conv1D paddings, strides and dilation, pooling,
Normalization and BatchNormalization, in tf_keras and Keras 3."""
import numpy as np

from tools.keras_fixtures.kit import (tk, keras, fresh, emit, randomize, case_rng, Inputs, make_inputs, tk_seq,
                 k3_seq, tk_fun, TK_SEQ, K3_SEQ, TK_FUN)


def conv_tfkeras_h5():
    """Conv1D & pooling (tf_keras, functional)."""
    fresh("tk")
    m = tk_fun((40, 3), [
        tk.layers.Conv1D(8, 5, padding="valid", activation="relu"),
        tk.layers.Conv1D(8, 4, padding="same", strides=2, activation="tanh"),
        tk.layers.MaxPooling1D(2),
        tk.layers.Conv1D(6, 3, padding="causal", dilation_rate=2, activation="elu"),
        tk.layers.AveragePooling1D(2),
        tk.layers.Conv1D(6, 2, strides=2, activation="selu"),
        tk.layers.GlobalAveragePooling1D(),
        tk.layers.Dense(4, activation="softmax"),
    ])
    randomize(m, case_rng("conv_tfkeras_h5"))
    emit("conv_tfkeras_h5", "tk", "legacy-h5", m, Inputs("conv_tfkeras_h5", (40, 3)),
         ["InputLayer", "Conv1D", "padding=valid", "padding=same", "padding=causal", "strides>1",
          "dilation>1", "MaxPooling1D", "AveragePooling1D", "GlobalAveragePooling1D", "Dense", "relu",
          "tanh", "elu", "selu", "softmax", TK_FUN],
         "Conv1D kernel (k, in, out), cross-correlation. (40,3) -> Conv1D(8,5,valid,relu) (36,8) -> "
         "Conv1D(8,4,same,strides 2,tanh) (18,8) [same with even kernel: pad_total=max((out-1)*s+k-n,0), "
         "left=pad_total//2] -> MaxPooling1D(2) (9,8) -> Conv1D(6,3,causal,dilation 2,elu) (9,6) "
         "[left pad (k-1)*d] -> AveragePooling1D(2) (4,6) -> Conv1D(6,2,strides 2,valid,selu) (2,6) -> "
         "GlobalAveragePooling1D -> Dense(4, softmax).")


def norm_bn_tfkeras_h5():
    """Normalization + BatchNormalization (tf_keras, Sequential)."""
    fresh("tk")
    norm = tk.layers.Normalization(axis=-1)
    loc = np.array([3.0, -2.0, 0.5, 10.0], np.float32)
    sc = np.array([2.0, 0.5, 1.0, 4.0], np.float32)
    norm.adapt(make_inputs("norm_bn_tfkeras_h5/adapt", (10, 4), 40, 0, loc, sc))
    m = tk_seq((10, 4), [
        norm,
        tk.layers.Conv1D(6, 3, padding="same"),
        tk.layers.BatchNormalization(center=False),
        tk.layers.Activation("relu"),
        tk.layers.BatchNormalization(scale=False),
        tk.layers.GlobalMaxPooling1D(),
        tk.layers.Dense(8, activation="swish"),
        tk.layers.BatchNormalization(),
        tk.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("norm_bn_tfkeras_h5"))
    emit("norm_bn_tfkeras_h5", "tk", "legacy-h5", m, Inputs("norm_bn_tfkeras_h5", (10, 4), loc=loc, scale=sc),
         ["InputLayer", "Normalization", "Conv1D", "padding=same", "BatchNormalization",
          "BatchNormalization center=False", "BatchNormalization scale=False", "Activation", "relu",
          "GlobalMaxPooling1D", "Dense", "swish", "linear", "sigmoid", TK_SEQ],
         "Normalization adapted on data (per-channel mean/variance/count are real; weights "
         "mean (4,), variance (4,), count int64 scalar): y = (x-mean)/max(sqrt(var),1e-7). "
         "BatchNormalization(center=False): weights gamma, moving_mean, moving_variance (no beta). "
         "BatchNormalization(scale=False): beta, moving_mean, moving_variance (no gamma). Full BN: "
         "gamma, beta, moving_mean, moving_variance; epsilon 1e-3; random non-trivial moving stats. "
         "y = gamma*(x-mean)/sqrt(var+eps)+beta.")


def conv_keras3_keras():
    """Conv/Normalization/BN in a Keras 3 archive (Sequential)."""
    fresh("k3")
    norm = keras.layers.Normalization(axis=-1)
    loc = np.array([-1.0, 4.0, 0.2], np.float32)
    sc = np.array([3.0, 0.3, 1.5], np.float32)
    norm.adapt(make_inputs("conv_keras3_keras/adapt", (32, 3), 40, 0, loc, sc))
    m = k3_seq((32, 3), [
        norm,
        keras.layers.Conv1D(8, 3, padding="causal", dilation_rate=2),
        keras.layers.BatchNormalization(center=False),
        keras.layers.Activation("relu"),
        keras.layers.MaxPooling1D(3, strides=2),
        keras.layers.Conv1D(8, 4, padding="same", strides=2, activation="gelu"),
        keras.layers.BatchNormalization(scale=False),
        keras.layers.AveragePooling1D(2),
        keras.layers.Conv1D(5, 3, padding="valid", activation="silu"),
        keras.layers.GlobalMaxPooling1D(),
        keras.layers.Dense(3, activation="softmax"),
    ])
    randomize(m, case_rng("conv_keras3_keras"))
    emit("conv_keras3_keras", "k3", "keras-archive", m, Inputs("conv_keras3_keras", (32, 3), loc=loc, scale=sc),
         ["keras-archive", "InputLayer", "Normalization", "Conv1D", "padding=causal", "padding=same",
          "padding=valid", "strides>1", "dilation>1", "BatchNormalization", "BatchNormalization center=False",
          "BatchNormalization scale=False", "Activation", "relu", "MaxPooling1D", "pool strides != pool size",
          "AveragePooling1D", "GlobalMaxPooling1D", "gelu", "silu", "Dense", "softmax", K3_SEQ],
         "(32,3) -> Normalization (adapted; vars mean, variance, count) -> Conv1D(8,3,causal,dilation 2) "
         "-> BN(center=False: vars gamma, moving_mean, moving_variance) -> relu -> MaxPooling1D(3, "
         "strides 2) (15,8) -> Conv1D(8,4,same,strides 2,gelu) (8,8) -> BN(scale=False: beta, "
         "moving_mean, moving_variance) -> AveragePooling1D(2) (4,8) -> Conv1D(5,3,valid,silu) (2,5) "
         "-> GlobalMaxPooling1D -> Dense(3, softmax).")
