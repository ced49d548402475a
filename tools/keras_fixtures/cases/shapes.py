"""Shape-layer cases: Reshape, Permute, TimeDistributed, Flatten and the layers that are
the identity at inference, in tf_keras and Keras 3."""
from tools.keras_fixtures.kit import (tk, keras, fresh, emit, randomize, case_rng, Inputs, tk_seq, k3_fun, TK_SEQ,
                 K3_FUN)


def shapes_tfkeras_h5():
    """Shape layers (tf_keras, Sequential)."""
    fresh("tk")
    m = tk_seq((48,), [
        tk.layers.Reshape((12, 4)),
        tk.layers.Permute((2, 1)),
        tk.layers.TimeDistributed(tk.layers.Dense(5, activation="tanh")),
        tk.layers.GaussianNoise(0.3),
        tk.layers.SpatialDropout1D(0.3),
        tk.layers.Dropout(0.2),
        tk.layers.Flatten(),
        tk.layers.Dense(6),
        tk.layers.Activation("hard_sigmoid"),
        tk.layers.Dense(3),
        tk.layers.Activation("softmax"),
    ])
    randomize(m, case_rng("shapes_tfkeras_h5"))
    emit("shapes_tfkeras_h5", "tk", "legacy-h5", m, Inputs("shapes_tfkeras_h5", (48,)),
         ["InputLayer", "Reshape", "Permute", "TimeDistributed", "TimeDistributed(Dense)", "Dense",
          "tanh", "GaussianNoise", "SpatialDropout1D", "Dropout", "Flatten", "Activation",
          "hard_sigmoid", "hard_sigmoid (tf_keras: clip(0.2x+0.5))", "linear", "softmax", TK_SEQ],
         "48 -> Reshape((12,4)) -> Permute((2,1)) (4,12) -> TimeDistributed(Dense(5,tanh)) (4,5) -> "
         "GaussianNoise/SpatialDropout1D/Dropout (identity at inference) -> Flatten (20) -> Dense(6) -> "
         "Activation(hard_sigmoid, tf_keras formula clip(0.2x+0.5,0,1)) -> Dense(3) -> "
         "Activation(softmax). TimeDistributed weights are stored as time_distributed/kernel:0, bias:0.")


def shapes_keras3_h5():
    """Shapes in Keras 3 (functional, legacy h5)."""
    fresh("k3")
    m = k3_fun((60,), [
        keras.layers.Reshape((15, 4)),
        keras.layers.Permute((2, 1)),
        keras.layers.TimeDistributed(keras.layers.Dense(6, activation="gelu")),
        keras.layers.SpatialDropout1D(0.2),
        keras.layers.GaussianNoise(0.5),
        keras.layers.Flatten(),
        keras.layers.Dropout(0.5),
        keras.layers.Dense(5, activation="hard_sigmoid"),
        keras.layers.Dense(2),
    ])
    randomize(m, case_rng("shapes_keras3_h5"))
    emit("shapes_keras3_h5", "k3", "legacy-h5", m, Inputs("shapes_keras3_h5", (60,)),
         ["InputLayer", "Reshape", "Permute", "TimeDistributed", "TimeDistributed(Dense)", "gelu",
          "SpatialDropout1D", "GaussianNoise", "Flatten", "Dropout", "Dense",
          "hard_sigmoid (Keras 3: clip(x/6+0.5))", "linear", K3_FUN],
         "60 -> Reshape((15,4)) -> Permute((2,1)) (4,15) -> TimeDistributed(Dense(6, gelu)) -> "
         "SpatialDropout1D, GaussianNoise (identity at inference) -> Flatten (24) -> Dropout -> "
         "Dense(5, hard_sigmoid Keras 3 formula) -> Dense(2) linear output.")
