import CHDF5
import Glibc

/// A read-only HDF5 file: the few operations Keras weight files need
/// (string attributes in both h5py layouts, float datasets, links), each
/// failure a typed ``HDF5Error`` naming the object. All libhdf5 calls of
/// the engine go through this type.
package final class HDF5File {
    package let name: String
    private let handle: hid_t
    /// libhdf5's functions (loaded by the first file opened).
    private let h5: headsup_hdf5
    /// Keeps an in-memory image alive while the file is open.
    private var image: [UInt8]?

    /// Opens a file on disk.
    package init(path: String) throws(HDF5Error) {
        let h5 = try HDF5Library.load(for: path).api
        self.h5 = h5
        name = path
        guard access(path, R_OK) == 0 else {
            throw HDF5Error(file: path, object: "", problem: .cannotOpen)
        }
        guard headsup_hdf5_is_hdf5(h5, path) > 0 else { throw HDF5Error(file: path, object: "", problem: .notHDF5) }
        let id = h5.H5Fopen!(path, headsup_H5F_ACC_RDONLY, headsup_H5P_DEFAULT)
        guard id >= 0 else { throw HDF5Error(file: path, object: "", problem: .cannotOpen) }
        handle = id
    }

    /// Opens an HDF5 image held in memory (the weights inside a `.keras` zip).
    package init(image bytes: [UInt8], name: String) throws(HDF5Error) {
        let h5 = try HDF5Library.load(for: name).api
        self.h5 = h5
        self.name = name
        guard bytes.starts(with: [0x89, 0x48, 0x44, 0x46, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw HDF5Error(file: name, object: "", problem: .notHDF5)
        }
        image = bytes
        let access = h5.H5Pcreate!(h5.H5P_CLS_FILE_ACCESS_ID_g)
        defer { _ = h5.H5Pclose!(access) }
        _ = h5.H5Pset_fapl_core!(access, 64 * 1024, false)
        let status = image!.withUnsafeMutableBytes { h5.H5Pset_file_image!(access, $0.baseAddress, $0.count) }
        guard status >= 0 else { throw HDF5Error(file: name, object: "", problem: .cannotOpen) }
        let id = h5.H5Fopen!(name, headsup_H5F_ACC_RDONLY, access)
        guard id >= 0 else { throw HDF5Error(file: name, object: "", problem: .cannotOpen) }
        handle = id
    }

    deinit { _ = h5.H5Fclose!(handle) }

    // MARK: Links

    /// True when every component of `path` exists (H5Lexists needs each parent to exist).
    package func exists(_ path: String) -> Bool {
        var prefix = ""
        for component in path.split(separator: "/") {
            prefix += "/" + component
            guard h5.H5Lexists!(handle, prefix, headsup_H5P_DEFAULT) > 0 else { return false }
        }
        return true
    }

    /// Names of the members of a group, in HDF5's (alphabetical) order.
    package func members(of group: String) throws(HDF5Error) -> [String] {
        let id = try openObject(group)
        defer { _ = h5.H5Oclose!(id) }
        var info = H5G_info_t()
        guard h5.H5Gget_info!(id, &info) >= 0 else { throw HDF5Error(file: name, object: group, problem: .unreadable("group")) }
        var names: [String] = []
        for index in 0..<info.nlinks {
            let length = h5.H5Lget_name_by_idx!(id, ".", H5_INDEX_NAME, H5_ITER_INC, index, nil, 0, headsup_H5P_DEFAULT)
            guard length >= 0 else { throw HDF5Error(file: name, object: group, problem: .unreadable("member names")) }
            var buffer = [CChar](repeating: 0, count: Int(length) + 1)
            _ = h5.H5Lget_name_by_idx!(id, ".", H5_INDEX_NAME, H5_ITER_INC, index, &buffer, buffer.count, headsup_H5P_DEFAULT)
            names.append(String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return names
    }

    private func openObject(_ path: String) throws(HDF5Error) -> hid_t {
        guard exists(path) || path == "/" else { throw HDF5Error(file: name, object: path, problem: .missingObject) }
        let id = h5.H5Oopen!(handle, path, headsup_H5P_DEFAULT)
        guard id >= 0 else { throw HDF5Error(file: name, object: path, problem: .unreadable("object")) }
        return id
    }

    // MARK: Attributes

    package func hasAttribute(_ attribute: String, at path: String = "/") -> Bool {
        guard let id = try? openObject(path) else { return false }
        defer { _ = h5.H5Oclose!(id) }
        return h5.H5Aexists!(id, attribute) > 0
    }

    /// A string attribute, or the strings of a string-array attribute, in
    /// either h5py layout: variable-length (h5py 3) or fixed-length
    /// NULL-padded (h5py 2). An empty numeric array (h5py 2's way of
    /// writing an empty list) reads as no strings.
    package func stringsAttribute(_ attribute: String, at path: String = "/") throws(HDF5Error) -> [String] {
        let object = try openObject(path)
        defer { _ = h5.H5Oclose!(object) }
        guard h5.H5Aexists!(object, attribute) > 0 else {
            throw HDF5Error(file: name, object: path, problem: .missingAttribute(attribute))
        }
        let id = h5.H5Aopen!(object, attribute, headsup_H5P_DEFAULT)
        guard id >= 0 else { throw HDF5Error(file: name, object: path, problem: .unreadable("attribute \(attribute)")) }
        defer { _ = h5.H5Aclose!(id) }
        let fileType = h5.H5Aget_type!(id)
        defer { _ = h5.H5Tclose!(fileType) }
        let space = h5.H5Aget_space!(id)
        defer { _ = h5.H5Sclose!(space) }
        let count = Int(h5.H5Sget_simple_extent_npoints!(space))
        let unreadable = HDF5Error(file: name, object: path, problem: .unreadable("attribute \(attribute)"))
        // A damaged header can claim any size: check it before allocating for it.
        guard count >= 0, count <= Self.largestAttributeCount else { throw unreadable }
        switch h5.H5Tget_class!(fileType) {
        case H5T_STRING:
            let memoryType = h5.H5Tcopy!(h5.H5T_C_S1_g)
            defer { _ = h5.H5Tclose!(memoryType) }
            _ = h5.H5Tset_cset!(memoryType, h5.H5Tget_cset!(fileType))
            if h5.H5Tis_variable_str!(fileType) > 0 {
                _ = h5.H5Tset_size!(memoryType, headsup_H5T_VARIABLE())
                var pointers = [UnsafeMutablePointer<CChar>?](repeating: nil, count: count)
                guard h5.H5Aread!(id, memoryType, &pointers) >= 0 else { throw unreadable }
                defer { _ = headsup_hdf5_reclaim(h5, memoryType, space, &pointers) }
                return pointers.map { $0.map { String(cString: $0) } ?? "" }
            }
            let size = h5.H5Tget_size!(fileType)
            guard size > 0, count.multipliedReportingOverflow(by: size).partialValue <= Self.largestAttributeBytes,
                !count.multipliedReportingOverflow(by: size).overflow
            else { throw unreadable }
            _ = h5.H5Tset_size!(memoryType, size)
            _ = h5.H5Tset_strpad!(memoryType, H5T_STR_NULLPAD)
            var bytes = [UInt8](repeating: 0, count: count * size)
            guard h5.H5Aread!(id, memoryType, &bytes) >= 0 else { throw unreadable }
            return (0..<count).map { index in
                let slice = bytes[(index * size)..<((index + 1) * size)]
                let end = slice.firstIndex(of: 0) ?? slice.endIndex
                return String(decoding: slice[..<end], as: UTF8.self)
            }
        default:
            if count == 0 { return [] }
            throw HDF5Error(file: name, object: path, problem: .unsupportedType("attribute \(attribute) is not text"))
        }
    }

    /// A single string attribute (such as `model_config`).
    package func stringAttribute(_ attribute: String, at path: String = "/") throws(HDF5Error) -> String {
        let strings = try stringsAttribute(attribute, at: path)
        guard let first = strings.first, strings.count == 1 else {
            throw HDF5Error(file: name, object: path, problem: .unsupportedType("attribute \(attribute) is not one string"))
        }
        return first
    }

    // MARK: Datasets

    /// Bounds a damaged file cannot talk the reader past: 256 M values
    /// (1 GiB of Float32) per weight array, 64 MiB of attribute text.
    static let largestDatasetCount = 1 << 28
    static let largestAttributeCount = 1 << 20
    static let largestAttributeBytes = 64 << 20

    /// A numeric dataset converted to Float32, with its shape.
    package func floatDataset(_ path: String) throws(HDF5Error) -> (shape: [Int], values: [Float]) {
        guard exists(path) else { throw HDF5Error(file: name, object: path, problem: .missingObject) }
        let id = h5.H5Dopen2!(handle, path, headsup_H5P_DEFAULT)
        guard id >= 0 else { throw HDF5Error(file: name, object: path, problem: .unreadable("dataset")) }
        defer { _ = h5.H5Dclose!(id) }
        let type = h5.H5Dget_type!(id)
        defer { _ = h5.H5Tclose!(type) }
        let typeClass = h5.H5Tget_class!(type)
        guard typeClass == H5T_FLOAT || typeClass == H5T_INTEGER else {
            throw HDF5Error(file: name, object: path, problem: .unsupportedType("dataset is not numeric"))
        }
        let space = h5.H5Dget_space!(id)
        defer { _ = h5.H5Sclose!(space) }
        let rank = Int(h5.H5Sget_simple_extent_ndims!(space))
        guard rank >= 0 else { throw HDF5Error(file: name, object: path, problem: .unreadable("dataset shape")) }
        var dimensions = [hsize_t](repeating: 0, count: rank)
        _ = h5.H5Sget_simple_extent_dims!(space, &dimensions, nil)
        // A damaged header can claim any shape: check the size before allocating for it.
        guard dimensions.allSatisfy({ $0 <= hsize_t(Int.max) }) else {
            throw HDF5Error(file: name, object: path, problem: .unreadable("dataset shape"))
        }
        let shape = dimensions.map { Int($0) }
        var count = 1
        for dimension in shape {
            let (product, overflow) = count.multipliedReportingOverflow(by: dimension)
            guard !overflow, product <= Self.largestDatasetCount else {
                throw HDF5Error(file: name, object: path, problem: .unreadable("dataset shape \(shape): larger than any model HeadsUp runs"))
            }
            count = product
        }
        var values = [Float](repeating: 0, count: count)
        if count > 0 {
            let status = values.withUnsafeMutableBytes {
                h5.H5Dread!(id, h5.H5T_NATIVE_FLOAT_g, headsup_H5S_ALL, headsup_H5S_ALL, headsup_H5P_DEFAULT, $0.baseAddress)
            }
            guard status >= 0 else { throw HDF5Error(file: name, object: path, problem: .unreadable("dataset values")) }
        }
        return (shape, values)
    }
}
