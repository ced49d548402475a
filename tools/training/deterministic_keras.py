"""TensorFlow and Keras set up the way the training tools need them: CPU
only, quiet, deterministic ops, 1 inter-op and 2 intra-op threads (the
environment itself, PYTHONHASHSEED and TF_ENABLE_ONEDNN_OPTS, comes from
pyvenv.TENSORFLOW_ENV when the tool re-executes in its venv).

    from deterministic_keras import tf, keras
"""
import logging
import os
import warnings

os.environ.setdefault("KERAS_BACKEND", "tensorflow")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.filterwarnings("ignore")
logging.getLogger("absl").setLevel(logging.ERROR)

import tensorflow as tf  # noqa: E402
import keras  # noqa: E402

tf.get_logger().setLevel("ERROR")
tf.config.experimental.enable_op_determinism()
tf.config.threading.set_inter_op_parallelism_threads(1)
tf.config.threading.set_intra_op_parallelism_threads(2)
