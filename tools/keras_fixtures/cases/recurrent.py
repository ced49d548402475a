"""Recurrent cases: LSTM, GRU and SimpleRNN options, Bidirectional merge modes, and the
streamable (forward-only) stacks, in tf_keras and Keras 3."""
import numpy as np

from tools.keras_fixtures.kit import (tk, keras, fresh, emit, randomize, case_rng, Inputs, make_inputs, tk_seq,
                 k3_seq, tk_fun, k3_fun, TK_SEQ, K3_SEQ, TK_FUN, K3_FUN)


def lstm_tfkeras_h5():
    """LSTM options (tf_keras, functional)."""
    fresh("tk")
    m = tk_fun((24, 6), [
        tk.layers.LSTM(16, return_sequences=True, go_backwards=True),
        tk.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        tk.layers.LSTM(10, go_backwards=True, recurrent_activation="hard_sigmoid"),
        tk.layers.Dense(3, activation="softmax"),
    ])
    randomize(m, case_rng("lstm_tfkeras_h5"))
    emit("lstm_tfkeras_h5", "tk", "legacy-h5", m, Inputs("lstm_tfkeras_h5", (24, 6)),
         ["InputLayer", "LSTM", "return_sequences", "go_backwards",
          "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))", "Dense", "softmax", TK_FUN],
         "LSTM(16, return_sequences, go_backwards) -> LSTM(12, return_sequences, hard_sigmoid) -> "
         "LSTM(10, go_backwards, hard_sigmoid) -> Dense(3, softmax). go_backwards + "
         "return_sequences: Keras returns the outputs in processing order, i.e. output[t] is the "
         "state after reading x[T-1-t] (NOT re-reversed); the next layer consumes that order. "
         "Random weights x2.5.")


def gru_tfkeras_h5():
    """GRU (tf_keras, Sequential)."""
    fresh("tk")
    m = tk_seq((20, 5), [
        tk.layers.GRU(12, return_sequences=True, reset_after=True),
        tk.layers.GRU(10, return_sequences=True, reset_after=False, go_backwards=True),
        tk.layers.GRU(8, return_sequences=True, reset_after=True, go_backwards=True,
                      recurrent_activation="hard_sigmoid"),
        tk.layers.GRU(6, reset_after=False, recurrent_activation="hard_sigmoid"),
        tk.layers.Dense(1, activation="sigmoid"),
    ])
    randomize(m, case_rng("gru_tfkeras_h5"), scale=2.0)
    emit("gru_tfkeras_h5", "tk", "legacy-h5", m, Inputs("gru_tfkeras_h5", (20, 5)),
         ["InputLayer", "GRU", "reset_after=true", "reset_after=false", "GRU bias (3u) and (2,3u)",
          "return_sequences", "go_backwards", "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))",
          "Dense", "sigmoid", TK_SEQ],
         "GRU gates z, r, h (column blocks of 3u). reset_after=True: bias (2,3u) = [input bias; "
         "recurrent bias], h~ = tanh(x Wh + bx_h + r*(h Uh + bh_h)). reset_after=False: bias (3u), "
         "h~ = tanh(x Wh + (r*h) Uh + b_h). Random weights x2.0 (x2.5 was ill-conditioned).")


def simplernn_tfkeras_h5():
    """SimpleRNN (tf_keras, functional)."""
    fresh("tk")
    m = tk_fun((16, 4), [
        tk.layers.SimpleRNN(10, return_sequences=True, go_backwards=True),
        tk.layers.SimpleRNN(8, return_sequences=True, activation="relu"),
        tk.layers.SimpleRNN(6, go_backwards=True),
        tk.layers.Dense(2, activation="softplus"),
    ])
    randomize(m, case_rng("simplernn_tfkeras_h5"), scale=1.5)
    emit("simplernn_tfkeras_h5", "tk", "legacy-h5", m, Inputs("simplernn_tfkeras_h5", (16, 4)),
         ["InputLayer", "SimpleRNN", "return_sequences", "go_backwards", "relu", "tanh", "Dense",
          "softplus", TK_FUN],
         "SimpleRNN(10, tanh, return_sequences, go_backwards) -> SimpleRNN(8, relu, "
         "return_sequences) -> SimpleRNN(6, go_backwards) -> Dense(2, softplus). Weights x1.5 "
         "(a relu recurrence with x2.5 explodes).")


def bidir_tfkeras_h5():
    """Bidirectional (tf_keras, Sequential)."""
    fresh("tk")
    m = tk_seq((12, 4), [
        tk.layers.Bidirectional(tk.layers.LSTM(8, return_sequences=True), merge_mode="concat"),
        tk.layers.Bidirectional(tk.layers.GRU(6, return_sequences=True), merge_mode="sum"),
        tk.layers.Bidirectional(tk.layers.SimpleRNN(5, return_sequences=True), merge_mode="mul"),
        tk.layers.Bidirectional(tk.layers.GRU(4, reset_after=False), merge_mode="ave"),
        tk.layers.Dense(3, activation="tanh"),
    ])
    randomize(m, case_rng("bidir_tfkeras_h5"), scale=1.5)
    emit("bidir_tfkeras_h5", "tk", "legacy-h5", m, Inputs("bidir_tfkeras_h5", (12, 4)),
         ["InputLayer", "Bidirectional", "merge_mode=concat", "merge_mode=sum", "merge_mode=mul",
          "merge_mode=ave", "LSTM", "GRU", "reset_after=true", "reset_after=false", "SimpleRNN",
          "return_sequences", "Dense", "tanh", TK_SEQ],
         "Bidirectional merge modes concat (forward first), sum, mul, ave. With "
         "return_sequences the backward layer's output sequence is reversed back by Bidirectional "
         "so both halves are time-aligned (unlike a bare go_backwards layer); without "
         "return_sequences the backward half is its final state (after reading x[0]). Weights: "
         "forward_* then backward_* (kernel, recurrent_kernel, bias each). merge_mode=None is not "
         "expressible in a linear graph (the layer then returns two tensors): not covered. Weights "
         "x1.5: with x2.5 the four stacked bidirectional recurrences were chaotic (one input moved "
         "the output by 2.5e-5 under float32-rounding-level input noise).")


def rnn_keras3_h5():
    """RNNs in Keras 3 (functional, legacy h5)."""
    fresh("k3")
    m = k3_fun((20, 5), [
        keras.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        keras.layers.GRU(10, return_sequences=True, reset_after=False, go_backwards=True),
        keras.layers.GRU(8, return_sequences=True, recurrent_activation="hard_sigmoid"),
        keras.layers.SimpleRNN(6, return_sequences=True, go_backwards=True),
        keras.layers.LSTM(6, go_backwards=True),
        keras.layers.Dense(2, activation="softmax"),
    ])
    randomize(m, case_rng("rnn_keras3_h5"))
    emit("rnn_keras3_h5", "k3", "legacy-h5", m, Inputs("rnn_keras3_h5", (20, 5)),
         ["InputLayer", "LSTM", "GRU", "SimpleRNN", "return_sequences", "go_backwards",
          "reset_after=true", "reset_after=false", "GRU bias (3u) and (2,3u)",
          "recurrent_activation=hard_sigmoid (Keras 3: clip(x/6+0.5))", "Dense", "softmax", K3_FUN],
         "Keras 3 recurrent layers: LSTM(12, rs, recurrent hard_sigmoid = Keras 3 formula "
         "clip(x/6+0.5)) -> GRU(10, rs, reset_after=False, go_backwards) -> GRU(8, rs, "
         "reset_after=True, hard_sigmoid) -> SimpleRNN(6, rs, go_backwards) -> LSTM(6, "
         "go_backwards) -> Dense(2, softmax). go_backwards + return_sequences keeps the "
         "processing (reversed-time) order, as in Keras 2. Random weights x2.5.")


def bidir_keras3_weights():
    """Bidirectional in Keras 3 (weights-only .weights.h5 + JSON)."""
    fresh("k3")
    m = k3_seq((10, 4), [
        keras.layers.Bidirectional(keras.layers.LSTM(6, return_sequences=True), merge_mode="concat"),
        keras.layers.Bidirectional(keras.layers.GRU(5, return_sequences=True, reset_after=False), merge_mode="sum"),
        keras.layers.Bidirectional(keras.layers.SimpleRNN(4, return_sequences=True), merge_mode="mul"),
        keras.layers.Bidirectional(keras.layers.GRU(4), merge_mode="ave"),
        keras.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("bidir_keras3_weights"))
    emit("bidir_keras3_weights", "k3", "keras3-weights-h5", m, Inputs("bidir_keras3_weights", (10, 4)),
         ["keras3-weights-h5", "InputLayer", "Bidirectional", "merge_mode=concat", "merge_mode=sum",
          "merge_mode=mul", "merge_mode=ave", "LSTM", "GRU", "reset_after=false", "reset_after=true",
          "SimpleRNN", "return_sequences", "Dense", "sigmoid", K3_SEQ],
         "model.weights.h5 (Keras 3 save_weights) + model.json = keras.saving.serialize_keras_object"
         "(model) ({module, class_name, config, registered_name, build_config?}). Weight paths: "
         "layers/bidirectional/forward_layer/cell/vars/0..2 and .../backward_layer/cell/vars/0..2; "
         "the 2nd..4th Bidirectional are layers/bidirectional_1.._3. Group names come from the "
         "snake_case CLASS name + per-class counter in model.layers order, not from layer names.")


def stream_gru_keras3_h5():
    """Streamable recurrent stack in Keras 3 (forward only)."""
    # A stack that could run one time step at a time: per-step layers
    # (Normalization), forward recurrent layers (return_sequences chains with
    # Dropout between them) ending in one return_sequences=False layer, then a
    # Dense head.  Nothing runs backwards in time.
    fresh("k3")
    norm = keras.layers.Normalization(axis=-1)
    loc = np.array([0.5, -3.0, 9.81, 0.0, 2.0], np.float32)
    sc = np.array([1.5, 0.4, 2.0, 3.0, 0.8], np.float32)
    norm.adapt(make_inputs("stream_gru_keras3_h5/adapt", (16, 5), 40, 0, loc, sc))
    m = k3_seq((16, 5), [
        norm,
        keras.layers.GRU(10, return_sequences=True),
        keras.layers.Dropout(0.3),
        keras.layers.SimpleRNN(8),
        keras.layers.Dense(4, activation="softmax"),
    ])
    randomize(m, case_rng("stream_gru_keras3_h5"), scale=1.6)
    emit("stream_gru_keras3_h5", "k3", "legacy-h5", m, Inputs("stream_gru_keras3_h5", (16, 5), loc=loc, scale=sc),
         ["streamable (forward recurrent stack, step by step)", "InputLayer", "Normalization", "GRU",
          "reset_after=true", "return_sequences", "Dropout", "SimpleRNN", "tanh", "Dense", "softmax", K3_SEQ],
         "Streamable: (16,5) -> Normalization (adapted on data with per-channel mean/std "
         "%s / %s; per-step affine) -> GRU(10, return_sequences, Keras 3 default reset_after=True, "
         "bias (2,30), recurrent sigmoid) -> Dropout(0.3) -> SimpleRNN(8, tanh, last output) -> "
         "Dense(4, softmax). No go_backwards, no Bidirectional: a step-at-a-time scorer fed x[0..15] "
         "must reproduce the outputs. Inputs drawn from the adapted distribution (3 rows with 5x "
         "the spread). Keras 3 legacy h5 model.save('model.h5'). Random weights x1.6."
         % (loc.tolist(), sc.tolist()))


def stream_lstm_gru_tfkeras_h5():
    """Streamable recurrent stack in tf_keras (forward only)."""
    fresh("tk")
    m = tk_seq((18, 4), [
        tk.layers.LSTM(12, return_sequences=True, recurrent_activation="hard_sigmoid"),
        tk.layers.GRU(8, reset_after=False),
        tk.layers.Dense(2, activation="sigmoid"),
    ])
    randomize(m, case_rng("stream_lstm_gru_tfkeras_h5"), scale=2.0)
    emit("stream_lstm_gru_tfkeras_h5", "tk", "legacy-h5", m, Inputs("stream_lstm_gru_tfkeras_h5", (18, 4)),
         ["streamable (forward recurrent stack, step by step)", "InputLayer", "LSTM", "return_sequences",
          "recurrent_activation=hard_sigmoid (tf_keras: clip(0.2x+0.5))", "GRU", "reset_after=false",
          "Dense", "sigmoid", TK_SEQ],
         "Streamable: (18,4) -> LSTM(12, return_sequences, recurrent_activation hard_sigmoid = "
         "clip(0.2x+0.5,0,1)) -> GRU(8, reset_after=False: bias (24), reset gate applied to h before "
         "the recurrent kernel, last output) -> Dense(2, sigmoid). Forward only: a step-at-a-time "
         "scorer fed x[0..17] must reproduce the outputs. Random weights x2.0.")
