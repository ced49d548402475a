"""Dense cases: every activation (tf_keras and Keras 3 formulas) and a Keras 3 archive
with more than ten layers of one class."""
from tools.keras_fixtures.kit import (tk, keras, fresh, emit, randomize, case_rng, Inputs, k3_seq, tk_fun, k3_fun,
                 K3_SEQ, TK_FUN, K3_FUN)


def activations_tfkeras_h5():
    """Activations (tf_keras, functional)."""
    fresh("tk")
    acts = ["linear", "selu", "elu", "softsign", "swish", "gelu", "softplus", "hard_sigmoid",
            "tanh", "exponential", "relu"]
    layers = []
    for a in acts:
        layers.append(tk.layers.Dense(12, activation=a))
        if a == "hard_sigmoid":
            layers.append(tk.layers.Dense(12))
            layers.append(tk.layers.Activation("tanh"))
    layers += [tk.layers.Dense(6), tk.layers.Activation("sigmoid"), tk.layers.Dense(4),
               tk.layers.Activation("softmax")]
    m = tk_fun((10,), layers)
    randomize(m, case_rng("activations_tfkeras_h5"), scale=1.6)
    emit("activations_tfkeras_h5", "tk", "legacy-h5", m, Inputs("activations_tfkeras_h5", (10,)),
         ["InputLayer", "Dense", "Activation"] + acts + ["sigmoid", "softmax", "gelu exact (erf)",
                                                          "hard_sigmoid (tf_keras: clip(0.2x+0.5))", TK_FUN],
         "Chain of Dense(12) layers, one per activation: " + ", ".join(acts) + ", then "
         "Activation(sigmoid), Activation(softmax). tf_keras 'gelu' is the exact erf form "
         "(approximate=False is the default); swish = x*sigmoid(x); selu alpha 1.6732632, scale "
         "1.0507010; elu alpha 1.0; hard_sigmoid clip(0.2x+0.5,0,1). Weights x1.6.")


def activations_keras3_h5():
    """Activations (Keras 3, Sequential, legacy h5)."""
    fresh("k3")
    acts3 = ["silu", "gelu", "hard_sigmoid", "elu", "selu", "softplus", "softsign", "exponential",
             "relu", "tanh", "linear"]
    layers = []
    for i, a in enumerate(acts3):
        if i % 2 == 0:
            layers.append(keras.layers.Dense(12, activation=a))
        else:
            layers += [keras.layers.Dense(12), keras.layers.Activation(a)]
    layers += [keras.layers.Dense(4), keras.layers.Activation("sigmoid"), keras.layers.Dense(3, activation="softmax")]
    m = k3_seq((10,), layers)
    randomize(m, case_rng("activations_keras3_h5"), scale=1.6)
    emit("activations_keras3_h5", "k3", "legacy-h5", m, Inputs("activations_keras3_h5", (10,)),
         ["InputLayer", "Dense", "Activation"] + acts3 + ["sigmoid", "softmax", "swish (Keras 3 spells it silu)",
                                                           "gelu exact (erf)", "hard_sigmoid (Keras 3: clip(x/6+0.5))", K3_SEQ],
         "Keras 3 activations, alternately as Dense(activation=...) and as Activation layers: "
         + ", ".join(acts3) + ", then sigmoid, softmax. Keras 3 serializes swish as 'silu' (same "
         "function); gelu default approximate=False (erf); hard_sigmoid is relu6(x+3)/6 = "
         "clip(x/6+0.5,0,1), DIFFERENT from Keras 2's clip(0.2x+0.5). Weights x1.6.")


def dense_stack_keras3_keras():
    """Dense stack, Keras 3 archive with >= 11 layers."""
    fresh("k3")
    layers = []
    acts_stack = ["relu", "silu", "gelu", "tanh", "elu", "selu", "softsign", "softplus", "hard_sigmoid",
                  "linear", "relu", "tanh"]
    for i, a in enumerate(acts_stack):
        layers.append(keras.layers.Dense(16 - i // 2, activation=a))
        if i == 3:
            layers.append(keras.layers.Dropout(0.3))
        if i == 6:
            layers.append(keras.layers.BatchNormalization())
    layers.append(keras.layers.Dense(3))
    layers.append(keras.layers.Activation("softmax"))
    m = k3_fun((20,), layers)
    randomize(m, case_rng("dense_stack_keras3_keras"), scale=1.8)
    emit("dense_stack_keras3_keras", "k3", "keras-archive", m, Inputs("dense_stack_keras3_keras", (20,)),
         ["keras-archive", ">=11 layers of one class (dense_10 sorts before dense_2)", "InputLayer",
          "Dense", "Dropout", "BatchNormalization", "Activation", "softmax"] + sorted(set(acts_stack)) + [K3_FUN],
         "13 Dense layers -> weight groups layers/dense, layers/dense_1 ... layers/dense_12 in the "
         "archive's model.weights.h5; HDF5 lists them alphabetically (dense, dense_1, dense_10, "
         "dense_11, dense_12, dense_2, ...): map config layer i of class C to the i-th C group by "
         "NUMERIC suffix. Functional config: inbound_nodes are Keras 3 dicts "
         "{args: [{class_name: __keras_tensor__, config: {keras_history: [layer, node, tensor]}}], kwargs}.")
