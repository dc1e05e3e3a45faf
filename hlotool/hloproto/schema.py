"""XLA's HLO protocol buffers (HloModuleProto, HloProto, HloSnapshot and what they hold),
declared here with the field numbers of openxla/xla's `xla/service/hlo.proto` and
`xla/xla_data.proto`, and built at run time into message classes (no protoc, no generated
code). Messages nested in XLA's files are flat here (their names never reach the wire or
the text format); maps are their wire-equivalent repeated key/value entries. Fields this
table leaves out are skipped when read.
"""

from __future__ import annotations

import functools
from typing import Any

#: enum name (`Message.Enum` when XLA nests it) -> "NAME=number ..." (the first is 0).
ENUMS: dict[str, str] = {
    "PrimitiveType": (
        "PRIMITIVE_TYPE_INVALID=0 PRED=1 S1=30 S2=26 S4=21 S8=2 S16=3 S32=4 S64=5 U1=31 U2=27 "
        "U4=22 U8=6 U16=7 U32=8 U64=9 F16=10 F32=11 BF16=16 F64=12 F8E5M2=19 F8E4M3=28 "
        "F8E4M3FN=20 F8E4M3B11FNUZ=23 F8E3M4=29 F8E5M2FNUZ=24 F8E4M3FNUZ=25 F4E2M1FN=32 "
        "F8E8M0FNU=33 C64=15 C128=18 TUPLE=13 OPAQUE_TYPE=14 TOKEN=17 BUFFER=34"),
    "DimLevelType": "DIM_DENSE=0 DIM_COMPRESSED=1 DIM_SINGLETON=2 DIM_LOOSE_COMPRESSED=3",
    "OpSharding.Type": "REPLICATED=0 MAXIMAL=1 TUPLE=2 OTHER=3 MANUAL=4 UNKNOWN=5 UNREDUCED=6",
    "OpSharding.ShardGroupType": "AS=0 LIKE=1",
    "FftType": "FFT=0 IFFT=1 RFFT=2 IRFFT=3",
    "RandomDistribution": "RNG_INVALID=0 RNG_UNIFORM=1 RNG_NORMAL=2",
    "RandomAlgorithm": "RNG_DEFAULT=0 RNG_THREE_FRY=1 RNG_PHILOX=2",
    "PaddingType": "PADDING_INVALID=0 PADDING_VALID=1 PADDING_SAME=2",
    "TriangularSolveOptions.Transpose": "TRANSPOSE_INVALID=0 NO_TRANSPOSE=1 TRANSPOSE=2 ADJOINT=3",
    "PrecisionConfig.Precision": "DEFAULT=0 HIGH=1 HIGHEST=2",
    "PrecisionConfig.Algorithm": (
        "ALG_UNSET=0 ALG_DOT_ANY_F8_ANY_F8_F32=1 ALG_DOT_ANY_F8_ANY_F8_F32_FAST_ACCUM=2 "
        "ALG_DOT_F16_F16_F16=3 ALG_DOT_F16_F16_F32=4 ALG_DOT_BF16_BF16_BF16=5 "
        "ALG_DOT_BF16_BF16_F32=6 ALG_DOT_BF16_BF16_F32_X3=7 ALG_DOT_BF16_BF16_F32_X6=8 "
        "ALG_DOT_TF32_TF32_F32=9 ALG_DOT_TF32_TF32_F32_X3=10 ALG_DOT_F32_F32_F32=11 "
        "ALG_DOT_F64_F64_F64=12 ALG_DOT_BF16_BF16_F32_X9=13"),
    "ResultAccuracy.Mode": "DEFAULT=0 HIGHEST=1",
    "CustomCallSchedule": "SCHEDULE_NONE=0 SCHEDULE_LATEST=1 SCHEDULE_EARLIEST=2",
    "CustomCallApiVersion": (
        "API_VERSION_UNSPECIFIED=0 API_VERSION_ORIGINAL=1 API_VERSION_STATUS_RETURNING=2 "
        "API_VERSION_STATUS_RETURNING_UNIFIED=3 API_VERSION_TYPED_FFI=4"),
    "TriState": "TRI_STATE_UNSPECIFIED=0 TRI_STATE_TRUE=1 TRI_STATE_FALSE=2",
    "ConvolutionKind": ("CONVOLUTION_KIND_UNSET=0 CONVOLUTION_KIND_FPROP=1 "
                        "CONVOLUTION_KIND_DGRAD=2 CONVOLUTION_KIND_WGRAD=3"),
    "Kind": "UNDEFINED_ALIAS=0 MAY_ALIAS=1 MUST_ALIAS=2",
}

#: message name -> one field a line: `name number [repeated] type [oneof NAME]`; a type
#: is a scalar (int64, string, ...), an enum above or a message here.
MESSAGES: dict[str, str] = {
    "TileProto": "dimensions 1 repeated int64",
    "SplitConfigProto": "dimension 1 int64\nsplit_indices 2 repeated int64",
    "LayoutProto": """
        minor_to_major 1 repeated int64
        dim_level_types 9 repeated DimLevelType
        tiles 6 repeated TileProto
        tail_padding_alignment_in_elements 16 int64
        element_size_in_bits 7 int64
        memory_space 8 int64
        index_primitive_type 11 PrimitiveType
        pointer_primitive_type 12 PrimitiveType
        physical_shape 10 ShapeProto
        dynamic_shape_metadata_prefix_bytes 15 int64
        split_configs 17 repeated SplitConfigProto""",
    "ShapeProto": """
        element_type 2 PrimitiveType
        dimensions 3 repeated int64
        is_dynamic_dimension 6 repeated bool
        tuple_shapes 4 repeated ShapeProto
        layout 5 LayoutProto""",
    "ProgramShapeProto": """
        parameters 1 repeated ShapeProto
        result 2 ShapeProto
        parameter_names 3 repeated string""",
    "OpMetadata": """
        op_type 1 string
        op_name 2 string
        source_file 3 string
        source_line 4 int32
        source_end_line 17 int32
        source_column 18 int32
        source_end_column 19 int32
        size_of_generated_code_in_bytes 8 int64
        size_of_memory_working_set_in_bytes 9 int64
        deduplicated_name 12 string
        stack_frame_id 15 int32
        scheduling_name 16 string""",
    "LiteralProto": """
        shape 1 ShapeProto
        preds 2 repeated bool
        s1s 30 bytes
        s2s 26 bytes
        s4s 21 bytes
        s8s 15 bytes
        u1s 31 bytes
        u2s 27 bytes
        u4s 22 bytes
        u8s 3 bytes
        s32s 4 repeated int32
        s64s 5 repeated int64
        u32s 6 repeated uint32
        u64s 7 repeated uint64
        f32s 8 repeated float
        f64s 9 repeated double
        c64s 12 repeated float
        c128s 18 repeated double
        tuple_literals 10 repeated LiteralProto
        f16s 11 bytes
        bf16s 13 bytes
        u16s 16 bytes
        s16s 17 bytes
        f4e2m1fns 32 bytes
        f8e3m4s 29 bytes
        f8e4m3b11fnuzs 23 bytes
        f8e4m3fns 20 bytes
        f8e4m3fnuzs 25 bytes
        f8e4m3s 28 bytes
        f8e5m2fnuzs 24 bytes
        f8e5m2s 19 bytes
        f8e8m0fnus 33 bytes
        sparse_indices 14 repeated int64""",
    "WindowDimension": """
        size 1 int64
        stride 2 int64
        padding_low 3 int64
        padding_high 4 int64
        window_dilation 5 int64
        base_dilation 6 int64
        window_reversal 7 bool""",
    "Window": "dimensions 1 repeated WindowDimension",
    "GatherDimensionNumbers": """
        offset_dims 1 repeated int64
        collapsed_slice_dims 2 repeated int64
        start_index_map 3 repeated int64
        index_vector_dim 4 int64
        operand_batching_dims 5 repeated int64
        start_indices_batching_dims 6 repeated int64""",
    "ScatterDimensionNumbers": """
        update_window_dims 1 repeated int64
        inserted_window_dims 2 repeated int64
        scatter_dims_to_operand_dims 3 repeated int64
        index_vector_dim 4 int64
        input_batching_dims 5 repeated int64
        scatter_indices_batching_dims 6 repeated int64""",
    "ConvolutionDimensionNumbers": """
        input_batch_dimension 7 int64
        input_feature_dimension 8 int64
        input_spatial_dimensions 11 repeated int64
        kernel_input_feature_dimension 3 int64
        kernel_output_feature_dimension 4 int64
        kernel_spatial_dimensions 6 repeated int64
        output_batch_dimension 9 int64
        output_feature_dimension 10 int64
        output_spatial_dimensions 12 repeated int64""",
    "DotDimensionNumbers": """
        lhs_contracting_dimensions 1 repeated int64
        rhs_contracting_dimensions 2 repeated int64
        lhs_batch_dimensions 3 repeated int64
        rhs_batch_dimensions 4 repeated int64""",
    "RaggedDotDimensionNumbers": """
        dot_dimension_numbers 1 DotDimensionNumbers
        lhs_ragged_dimensions 2 repeated int64
        rhs_group_dimensions 3 repeated int64""",
    "PaddingConfigDimension": """
        edge_padding_low 1 int64
        edge_padding_high 2 int64
        interior_padding 3 int64""",
    "PaddingConfig": "dimensions 1 repeated PaddingConfigDimension",
    "TriangularSolveOptions": """
        left_side 1 bool
        lower 2 bool
        unit_diagonal 3 bool
        transpose_a 4 TriangularSolveOptions.Transpose""",
    "CholeskyOptions": "lower 1 bool",
    "StringEntry": "key 1 string\nvalue 2 string",
    "FrontendAttributes": "map 1 repeated StringEntry",
    "OpSharding": """
        type 1 OpSharding.Type
        tile_shape 2 ShapeProto
        tile_assignment_dimensions 3 repeated int64
        tile_assignment_devices 4 repeated int64
        tuple_shardings 5 repeated OpSharding
        replicate_on_last_tile_dim 6 bool
        metadata 7 repeated OpMetadata
        last_tile_dims 8 repeated OpSharding.Type
        iota_reshape_dims 9 repeated int64
        iota_transpose_perm 10 repeated int32
        is_shard_group 11 bool
        shard_group_id 12 int64
        shard_group_type 13 OpSharding.ShardGroupType""",
    "ReplicaGroup": "replica_ids 1 repeated int64",
    "IotaReplicaGroupListProto": """
        num_replica_groups 1 int64
        num_devices_per_group 2 int64
        iota_reshape_dims 3 repeated int64
        iota_transpose_perm 4 repeated int32""",
    "MeshAxis": "name 1 string\nsize 2 int64",
    "MeshProto": "axes 1 repeated MeshAxis\ndevice_ids 2 repeated int64",
    "SubAxis": "pre_size 1 int64\nsize 2 int64",
    "AxisRefProto": "mesh_axis_index 1 int64\nsub_axis_info 2 SubAxis",
    "MeshAxesReplicaGroupListProto": "mesh 1 MeshProto\naxes 2 repeated AxisRefProto",
    "CollectiveDeviceListProto": """
        replica_groups 1 repeated ReplicaGroup
        iota_replica_group_list 2 IotaReplicaGroupListProto""",
    "SourceTarget": "source 1 int64\ntarget 2 int64",
    "Tolerance": "atol 1 double\nrtol 2 double\nulps 3 int64",
    "ResultAccuracy": "mode 1 ResultAccuracy.Mode oneof specs\ntolerance 2 Tolerance oneof specs",
    "PrecisionConfig": "operand_precision 1 repeated PrecisionConfig.Precision\nalgorithm 2 PrecisionConfig.Algorithm",
    "ParameterReplication": "replicated_at_leaf_buffers 1 repeated bool",
    "OutputOperandAliasing": """
        output_shape_index 1 repeated int64
        operand_index 2 int64
        operand_shape_index 3 repeated int64""",
    "SliceDimensions": "start 1 int64\nlimit 2 int64\nstride 3 int64",
    "HloInstructionProto": """
        name 1 string
        opcode 2 string
        shape 3 ShapeProto
        metadata 7 OpMetadata
        literal 8 LiteralProto
        parameter_number 9 int64
        fusion_kind 11 string
        tuple_index 13 int64
        dimensions 14 repeated int64
        window 15 Window
        convolution_dimension_numbers 16 ConvolutionDimensionNumbers
        feature_group_count 50 int64
        batch_group_count 58 int64
        slice_dimensions 17 repeated SliceDimensions
        exponent_bits 18 int32
        mantissa_bits 19 int32
        dynamic_slice_sizes 20 repeated int64
        padding_config 21 PaddingConfig
        outfeed_config 22 bytes
        distribution 23 RandomDistribution
        epsilon 24 float
        feature_index 25 int64
        channel_id 26 int64
        infeed_config 27 bytes
        custom_call_target 28 string
        outfeed_shape 29 ShapeProto
        dot_dimension_numbers 30 DotDimensionNumbers
        ragged_dot_dimension_numbers 90 RaggedDotDimensionNumbers
        fft_type 31 FftType
        fft_length 32 repeated int64
        comparison_direction 63 string
        gather_dimension_numbers 33 GatherDimensionNumbers
        gather_slice_sizes 34 repeated int64
        id 35 int64
        operand_ids 36 repeated int64
        control_predecessor_ids 37 repeated int64
        called_computation_ids 38 repeated int64
        sharding 40 OpSharding
        backend_config 43 bytes
        replica_groups 49 repeated ReplicaGroup
        all_reduce_id 45 int64
        use_global_device_ids 71 bool
        is_host_transfer 47 bool
        is_stable 60 bool
        scatter_dimension_numbers 48 ScatterDimensionNumbers
        precision_config 51 PrecisionConfig
        source_target_pairs 52 repeated SourceTarget
        domain_entry_sharding 54 OpSharding
        domain_exit_sharding 55 OpSharding
        constrain_layout 56 bool
        operand_shapes_with_layout 57 repeated ShapeProto
        triangular_solve_options 59 TriangularSolveOptions
        cholesky_options 62 CholeskyOptions
        parameter_replication 61 ParameterReplication
        custom_call_has_side_effect 65 bool
        output_operand_aliasing 74 repeated OutputOperandAliasing
        custom_call_schedule 76 CustomCallSchedule
        delta 66 int64
        indices_are_sorted 67 bool
        frontend_attributes 68 FrontendAttributes
        unique_indices 69 bool
        rng_algorithm 70 RandomAlgorithm
        comparison_type 72 string
        is_cross_program_prefetch 73 bool
        cross_program_prefetch_index 80 int32 oneof optional_cross_program_prefetch_index
        padding_type 75 PaddingType
        custom_call_api_version 77 CustomCallApiVersion
        async_execution_thread 79 string
        k 81 int64
        largest 85 bool
        collective_device_list 87 CollectiveDeviceListProto oneof replica_group_list
        iota_collective_device_list 92 IotaReplicaGroupListProto oneof replica_group_list
        mesh_axes_replica_group_list 93 MeshAxesReplicaGroupListProto oneof replica_group_list
        is_composite 89 bool
        result_accuracy 91 ResultAccuracy
        is_reverse 94 bool
        num_carries 95 int64
        is_associative 96 TriState
        conv_kind 97 ConvolutionKind""",
    "HloComputationProto": """
        name 1 string
        instructions 2 repeated HloInstructionProto
        program_shape 4 ProgramShapeProto
        id 5 int64
        root_id 6 int64
        is_fusion_computation 7 bool
        execution_thread 8 string""",
    "InstructionSequence": "instruction_ids 1 repeated int64",
    "SequenceEntry": "key 1 int64\nvalue 2 InstructionSequence",
    "HloScheduleProto": "sequences 1 repeated SequenceEntry",
    "AliasEntryProto": """
        output_shape_index 1 repeated int64
        parameter_number 2 int64
        parameter_shape_index 3 repeated int64
        kind 4 Kind""",
    "HloInputOutputAliasProto": "entries 1 repeated AliasEntryProto",
    "BufferDonorEntryProto": "parameter_number 1 int64\nparameter_shape_index 2 repeated int64",
    "HloBufferDonorProto": "entries 1 repeated BufferDonorEntryProto",
    "ComputationDevice": "replica_device_ids 1 repeated int64",
    "DeviceAssignmentProto": """
        replica_count 1 int32
        computation_count 2 int32
        computation_devices 3 repeated ComputationDevice""",
    "FileLocation": """
        file_name_id 1 int32
        function_name_id 2 int32
        line 3 int32
        column 4 int32
        end_line 5 int32
        end_column 6 int32""",
    "StackFrame": "file_location_id 1 int32\nparent_frame_id 2 int32",
    "StackFrameIndexProto": """
        file_names 1 repeated string
        function_names 2 repeated string
        file_locations 3 repeated FileLocation
        stack_frames 4 repeated StackFrame""",
    "HloModuleProto": """
        name 1 string
        entry_computation_name 2 string
        entry_computation_id 6 int64
        computations 3 repeated HloComputationProto
        host_program_shape 4 ProgramShapeProto
        id 5 int64
        schedule 7 HloScheduleProto
        input_output_alias 8 HloInputOutputAliasProto
        buffer_donor 18 HloBufferDonorProto
        is_dynamic 11 bool
        spmd_output_sharding 12 OpSharding
        spmd_parameters_shardings 14 repeated OpSharding
        use_auto_spmd_partitioning 16 bool
        device_assignment 15 DeviceAssignmentProto
        stack_frame_index 17 StackFrameIndexProto
        frontend_attributes 19 FrontendAttributes""",
    "HloProto": "hlo_module 1 HloModuleProto",
    "HloSnapshot": """
        hlo 1 HloProto
        arguments 2 repeated LiteralProto
        result 3 LiteralProto
        execution_platform 4 string""",
}

_SCALARS = {"double": 1, "float": 2, "int64": 3, "uint64": 4, "int32": 5, "bool": 8,
            "string": 9, "bytes": 12, "uint32": 13}
_ENUM, _MESSAGE = 14, 11
_OPTIONAL, _REPEATED = 1, 3


@functools.cache
def message_class(name: str) -> Any:
    """The message class of one of MESSAGES (built once, in a private descriptor pool)."""
    from google.protobuf import descriptor_pool, message_factory

    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file())
    return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"xla.{name}"))


def _file() -> Any:
    from google.protobuf import descriptor_pb2

    f = descriptor_pb2.FileDescriptorProto(name="hlotool_xla_hlo.proto", package="xla",
                                           syntax="proto3")
    messages = {name: f.message_type.add(name=name) for name in MESSAGES}
    for name, values in ENUMS.items():
        outer, _, inner = name.rpartition(".")
        e = (messages[outer].enum_type if outer else f.enum_type).add(name=inner)
        for item in values.split():
            key, number = item.split("=")
            e.value.add(name=key, number=int(number))
    for name, body in MESSAGES.items():
        m = messages[name]
        oneofs: list[str] = []
        for line in body.strip().splitlines():
            words = line.split()
            field = m.field.add(name=words[0], number=int(words[1]))
            repeated = words[2] == "repeated"
            kind = words[3] if repeated else words[2]
            field.label = _REPEATED if repeated else _OPTIONAL
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            else:
                field.type = _ENUM if kind in ENUMS else _MESSAGE
                field.type_name = f".xla.{kind}"
            if "oneof" in words:
                group = words[words.index("oneof") + 1]
                if group not in oneofs:
                    oneofs.append(group)
                    m.oneof_decl.add(name=group)
                field.oneof_index = oneofs.index(group)
    return f
