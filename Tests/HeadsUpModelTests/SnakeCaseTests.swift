import Testing

@testable import HeadsUpModel

/// Keras's `to_snake_case`, which names a layer's weights group by its
/// class; the expected values are Python's (keras/src/utils/naming.py).
@Suite("Keras class names in snake case")
struct SnakeCaseTests {
    @Test(arguments: [
        ("GlobalAveragePooling1D", "global_average_pooling1d"), ("LSTM", "lstm"), ("SimpleRNN", "simple_rnn"), ("Conv1D", "conv1d"),
        ("BatchNormalization", "batch_normalization"), ("Dense", "dense"), ("aBcD", "a_bc_d"), ("ABCDef", "abc_def"),
        ("XMLHttpRequest", "xml_http_request"), ("Bidirectional", "bidirectional"), ("GRU", "gru"), ("MaxPooling1D", "max_pooling1d"),
        ("TimeDistributed", "time_distributed"), ("already_snake", "already_snake"), ("A", "a"), ("aB", "a_b"), ("Ab", "ab"),
        ("layer Name!", "layer_name"),
    ])
    func likePython(name: String, expected: String) {
        #expect(Keras3WeightSource.snakeCase(name) == expected)
    }
}
