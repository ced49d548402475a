#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An element-wise (or, for softmax, last-axis) activation, as named in a
/// Keras config. Read from the file, never assumed: the same name means
/// different things in different Keras versions (hard_sigmoid).
public enum Activation: Sendable, Equatable, CustomStringConvertible {
    case linear, relu, sigmoid, tanh, softmax, elu, selu, softplus, softsign, swish, gelu, exponential
    case relu6
    case leakyReLU(slope: Float)
    /// Keras 2 / tf.keras: clip(0.2x + 0.5, 0, 1). Keras 3: clip(x/6 + 0.5, 0, 1).
    case hardSigmoid(slope: Float)

    public static let keras2HardSigmoid = Activation.hardSigmoid(slope: 0.2)
    public static let keras3HardSigmoid = Activation.hardSigmoid(slope: 1.0 / 6.0)

    /// The activation a Keras config names, for a file written by Keras `majorVersion`.
    public init?(kerasName: String, kerasMajorVersion: Int) {
        switch kerasName {
        case "linear", "None": self = .linear
        case "relu": self = .relu
        case "sigmoid": self = .sigmoid
        case "tanh": self = .tanh
        case "softmax": self = .softmax
        case "elu": self = .elu
        case "selu": self = .selu
        case "softplus": self = .softplus
        case "softsign": self = .softsign
        case "swish", "silu": self = .swish
        case "gelu": self = .gelu
        case "exponential": self = .exponential
        case "relu6": self = .relu6
        case "leaky_relu": self = .leakyReLU(slope: 0.2)
        case "hard_sigmoid": self = kerasMajorVersion >= 3 ? .keras3HardSigmoid : .keras2HardSigmoid
        default: return nil
        }
    }

    /// Names understood, for error messages.
    public static let supportedNames = [
        "linear", "relu", "sigmoid", "tanh", "softmax", "elu", "selu", "softplus", "softsign", "swish", "silu",
        "gelu", "exponential", "hard_sigmoid", "relu6", "leaky_relu",
    ]

    public var description: String {
        switch self {
        case .linear: "linear"
        case .relu: "relu"
        case .sigmoid: "sigmoid"
        case .tanh: "tanh"
        case .softmax: "softmax"
        case .elu: "elu"
        case .selu: "selu"
        case .softplus: "softplus"
        case .softsign: "softsign"
        case .swish: "swish"
        case .gelu: "gelu"
        case .exponential: "exponential"
        case .relu6: "relu6"
        case .leakyReLU: "leaky_relu"
        case .hardSigmoid(let slope): slope == 0.2 ? "hard_sigmoid (Keras 2)" : "hard_sigmoid (Keras 3)"
        }
    }

    /// Applies the activation in place to `count` values; softmax works on
    /// consecutive groups of `lastAxis` values.
    @inlinable
    public func apply(_ values: UnsafeMutablePointer<Float>, count: Int, lastAxis: Int) {
        switch self {
        case .linear: return
        case .relu: for i in 0..<count { values[i] = max(values[i], 0) }
        case .relu6: for i in 0..<count { values[i] = min(max(values[i], 0), 6) }
        case .leakyReLU(let slope): for i in 0..<count where values[i] < 0 { values[i] *= slope }
        case .sigmoid: Self.sigmoid(values, count: count)
        case .tanh: Self.tanh(values, count: count)
        case .softmax:
            var start = 0
            while start < count {
                let group = values + start
                var largest = -Float.infinity
                for i in 0..<lastAxis { largest = max(largest, group[i]) }
                var sum: Float = 0
                for i in 0..<lastAxis {
                    group[i] = ScalarMath.exp(group[i] - largest)
                    sum += group[i]
                }
                for i in 0..<lastAxis { group[i] /= sum }
                start += lastAxis
            }
        case .elu: for i in 0..<count where values[i] < 0 { values[i] = ScalarMath.expm1(values[i]) }
        case .selu:
            let alpha: Float = 1.673_263_2
            let scale: Float = 1.050_701
            for i in 0..<count {
                let x = values[i]
                values[i] = x > 0 ? scale * x : scale * alpha * ScalarMath.expm1(x)
            }
        case .softplus:
            for i in 0..<count {
                let x = values[i]
                values[i] = max(x, 0) + ScalarMath.log1p(ScalarMath.exp(-abs(x)))
            }
        case .softsign: for i in 0..<count { values[i] /= 1 + abs(values[i]) }
        case .swish:
            for i in 0..<count {
                let x = values[i]
                values[i] = x / (1 + ScalarMath.exp(-x))
            }
        case .gelu:
            for i in 0..<count {
                let x = Double(values[i])
                values[i] = Float(0.5 * x * (1 + ScalarMath.errorFunction(x / 2.0.squareRoot())))
            }
        case .exponential: for i in 0..<count { values[i] = ScalarMath.exp(values[i]) }
        case .hardSigmoid(let slope): for i in 0..<count { values[i] = min(max(slope * values[i] + 0.5, 0), 1) }
        }
    }

    /// Logistic function, computed as TensorFlow and Keras do in float32.
    @inlinable
    static func sigmoid(_ values: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { values[i] = 1 / (1 + ScalarMath.exp(-values[i])) }
    }

    @inlinable
    static func tanh(_ values: UnsafeMutablePointer<Float>, count: Int) {
        for i in 0..<count { values[i] = ScalarMath.tanh(values[i]) }
    }
}

/// The C library's scalar functions, named so that ``Activation``'s own
/// `sigmoid` and `tanh` do not shadow them.
@usableFromInline
enum ScalarMath {
    @inlinable static func exp(_ x: Float) -> Float { expf(x) }
    @inlinable static func expm1(_ x: Float) -> Float { expm1f(x) }
    @inlinable static func log1p(_ x: Float) -> Float { log1pf(x) }
    @inlinable static func tanh(_ x: Float) -> Float { tanhf(x) }
    @inlinable static func errorFunction(_ x: Double) -> Double { erf(x) }
}
