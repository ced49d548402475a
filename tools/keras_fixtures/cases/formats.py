"""File-format cases: tf_keras weights-only h5 + to_json, layer_names split into
chunks, and Keras 3 weight groups named by class and counter, not by layer name."""
from tools.keras_fixtures.kit import (tk, keras, fresh, emit, randomize, case_rng, Inputs, tk_seq, tk_fun, k3_fun,
                 TK_SEQ, TK_FUN, K3_FUN)


def mixed_tfkeras_weights():
    """tf_keras weights-only h5 + to_json."""
    fresh("tk")
    m = tk_fun((30, 4), [
        tk.layers.Conv1D(8, 3, padding="causal", activation="relu"),
        tk.layers.GRU(8, return_sequences=True),
        tk.layers.TimeDistributed(tk.layers.Dense(4, activation="elu")),
        tk.layers.LSTM(6),
        tk.layers.Dense(1),
    ])
    randomize(m, case_rng("mixed_tfkeras_weights"), scale=2.0)
    emit("mixed_tfkeras_weights", "tk", "legacy-weights-h5", m, Inputs("mixed_tfkeras_weights", (30, 4)),
         ["legacy-weights-h5", "model.to_json()", "InputLayer", "Conv1D", "padding=causal", "GRU",
          "reset_after=true", "return_sequences", "TimeDistributed", "TimeDistributed(Dense)", "elu",
          "LSTM", "Dense", "linear", "relu", TK_FUN],
         "tf_keras model.save_weights('model_weights.h5'): layer_names/backend/keras_version are "
         "attributes of the ROOT group (no model_weights group, no model_config); the architecture "
         "is model.json = model.to_json() ({class_name, config, keras_version, backend}). "
         "Random weights x2.0.")


def many_layers_tfkeras_h5():
    """layer_names split into layer_names0, 1, ..."""
    # h5py stores the list as ONE fixed-length S<longest> array, so a single long
    # name among 69 layers is enough to pass HDF5_OBJECT_HEADER_LIMIT (64,512 B).
    fresh("tk")
    long_name = "wide_" + "".join("%03d" % (j % 1000) for j in range(332))[:995]
    layers = []
    for i in range(34):
        layers.append(tk.layers.Dense(8, activation="tanh", name=long_name if i == 17 else "dense%02d" % i))
        layers.append(tk.layers.Activation("linear", name="act%02d" % i))
    layers.append(tk.layers.Dense(2, name="out"))
    m = tk_seq((8,), layers)
    randomize(m, case_rng("many_layers_tfkeras_h5"), scale=1.2)
    emit("many_layers_tfkeras_h5", "tk", "legacy-h5", m, Inputs("many_layers_tfkeras_h5", (8,)),
         ["layer_names split (layer_names0, layer_names1, ...)", "fixed-length strings (chunks)",
          "NULL-padded short names", "long layer name", "InputLayer", "Dense", "tanh", "Activation",
          "linear", TK_SEQ],
         "69 layers (34 x Dense(8, tanh) + Activation(linear), then Dense(2)); one Dense is named "
         "with 1,000 characters. np.asarray(layer names) is an S1000 array of 69 x 1000 = 69,000 "
         "bytes > HDF5_OBJECT_HEADER_LIMIT (64,512), so tf_keras's save_attributes_to_hdf5_group "
         "wrote np.array_split chunks layer_names0 (35 names) and layer_names1 (34 names), "
         "fixed-length NULL-padded S1000 arrays, and NO layer_names attribute: read layer_names<k> "
         "for k = 0, 1, ... until missing and concatenate. (Unsplit, tf_keras/Keras 3 write "
         "layer_names as variable-length strings.) weight_names stay unsplit.")


def renamed_keras3_keras():
    """Keras 3 archive: weight groups follow class + counter, not names."""
    # Layer names are chosen so that looking groups up BY NAME picks another
    # layer's weights of the same shape: the first Dense is named "dense_1"
    # (its group is layers/dense), the second "dense" (group layers/dense_1);
    # the first Conv1D is named "conv1d_1" (group layers/conv1d), the second
    # "features" (group layers/conv1d_1); the BatchNormalization is named
    # "dense_2", which is the group of the third Dense (named "head").
    fresh("k3")
    m = k3_fun((20, 6), [
        keras.layers.Conv1D(6, 3, padding="same", activation="tanh", name="conv1d_1"),
        keras.layers.Conv1D(6, 3, padding="same", activation="relu", name="features"),
        keras.layers.GlobalAveragePooling1D(name="pool"),
        keras.layers.BatchNormalization(name="dense_2"),
        keras.layers.Dense(6, activation="tanh", name="dense_1"),
        keras.layers.Dense(6, activation="elu", name="dense"),
        keras.layers.Dense(3, activation="softmax", name="head"),
    ])
    randomize(m, case_rng("renamed_keras3_keras"), scale=2.0)
    emit("renamed_keras3_keras", "k3", "keras-archive", m, Inputs("renamed_keras3_keras", (20, 6)),
         ["keras-archive", "weight groups by class + counter, not layer name", "custom layer names",
          "InputLayer", "Conv1D", "padding=same", "GlobalAveragePooling1D", "BatchNormalization", "Dense",
          "tanh", "relu", "elu", "softmax", K3_FUN],
         "Layer names do not match the weight groups. Config order and names: conv1d_1 (Conv1D 6->6), "
         "features (Conv1D 6->6), pool, dense_2 (BatchNormalization), dense_1 (Dense 6->6), dense "
         "(Dense 6->6), head (Dense 6->3). model.weights.h5 groups are named from the snake_case "
         "CLASS + per-class counter in model.layers order: layers/conv1d = layer 'conv1d_1', "
         "layers/conv1d_1 = 'features', layers/batch_normalization = 'dense_2', layers/dense = "
         "'dense_1', layers/dense_1 = 'dense', layers/dense_2 = 'head'. Looking groups up by layer "
         "name finds same-shaped wrong weights for both Conv1Ds and the first two Dense layers.")
