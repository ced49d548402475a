"""The tf_keras and Keras 3 cases, a module per layer family. Each case is a
function that builds its model and `emit`s it; ORDER is the order of
cases.json (after the three seed cases and the Keras 2.3.1 ones), kept as
it was when all the cases were one function, so the fixtures do not move."""
from tools.keras_fixtures.cases import convolution, dense, formats, recurrent, shapes
from tools.keras_fixtures.cases.seed import build_seed, seed_cases

ORDER = [
    recurrent.lstm_tfkeras_h5,
    recurrent.gru_tfkeras_h5,
    recurrent.simplernn_tfkeras_h5,
    recurrent.bidir_tfkeras_h5,
    convolution.conv_tfkeras_h5,
    convolution.norm_bn_tfkeras_h5,
    shapes.shapes_tfkeras_h5,
    dense.activations_tfkeras_h5,
    dense.activations_keras3_h5,
    recurrent.rnn_keras3_h5,
    recurrent.bidir_keras3_weights,
    dense.dense_stack_keras3_keras,
    convolution.conv_keras3_keras,
    shapes.shapes_keras3_h5,
    formats.mixed_tfkeras_weights,
    formats.many_layers_tfkeras_h5,
    recurrent.stream_gru_keras3_h5,
    recurrent.stream_lstm_gru_tfkeras_h5,
    formats.renamed_keras3_keras,
]

__all__ = ["ORDER", "build_cases", "build_seed"]


def build_cases(seed_tk, seed_x):
    print("tf_keras / Keras 3 cases:", flush=True)
    seed_cases(seed_tk, seed_x)
    for case in ORDER:
        case()
