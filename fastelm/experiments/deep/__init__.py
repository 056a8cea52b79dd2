"""The deep comparators of the BLS-for-fMRI reproduction: a connectome CNN and a population GCN.

Liu & Ji (2021) compare the Broad Learning System with a CNN on connectomes (CCNN) and a graph
convolutional network (GCN). This package builds the two as scikit-learn classifiers so they run
in the same cross-validation loop, on the same folds and connectome features, as every other
model of :mod:`fastelm.experiments.bls_fmri`:

BrainNetCNNClassifier
    Kawahara, Brown, Miller, Booth, Chau, Grunau, Zwicker & Hamarneh (2017), BrainNetCNN:
    convolutional neural networks for brain networks; towards predicting neurodevelopment,
    NeuroImage 146. Input: each subject's M×M connectome, rebuilt from its strict upper triangle.
    Edge-to-edge (E2E) filters: out[i, j] = Σ_c Σ_k r_c[k]·A_c[i, k] + q_c[k]·A_c[k, j] (a 1×M
    row and an M×1 column convolution, broadcast and summed); edge-to-node (E2N): a 1×M row
    convolution, out[i] = Σ_c Σ_k r_c[k]·A_c[i, k]; node-to-graph (N2G): an M×1 convolution over
    the nodes; then fully connected layers. Leaky ReLU (slope 0.33) after every layer, dropout
    0.5 after N2G and each hidden layer, as published. The published network (M = 90 ROIs) has
    E2E 32, E2E 32, E2N 64, N2G 256, FC 128, FC 30; at CC200's M = 200 an E2E layer holds
    (channels × 200 × 200) activations per subject, 4.9× those at M = 90, and one epoch of
    ~700 subjects with E2E (8, 8) cost 16 CPU seconds here, so the default is one E2E layer of
    4 channels, E2N 8, N2G 32, FC 16 (about 8 CPU seconds per epoch on a loaded machine).
PopulationGCNClassifier
    Parisot, Ktena, Ferrante, Lee, Guerrero, Glocker & Rueckert (2018), Disease prediction using
    graph convolutional networks: application to autism spectrum disorder and Alzheimer's
    disease, Medical Image Analysis 48. One graph over all subjects, training and test
    (transductive; the test subjects' labels are never given to the model):
    W(v, w) = Sim(x_v, x_w) · Σ_h [M_h(v) = M_h(w)], Sim = exp(−ρ(x_v, x_w)² / (2σ²)) with ρ the
    correlation distance of the selected features and σ the mean of ρ over all pairs, and the
    phenotypes M_h = site and sex. Features: the connectome reduced to ``n_selected`` = 2000 by
    recursive feature elimination with a ridge classifier (:class:`RidgeRFE`) fitted on the
    training subjects only. Two Chebyshev graph convolutions (Defferrard et al. 2016),
    H' = Σ_{k=0..K} T_k(L̃)·H·Θ_k with L̃ = 2L/λ_max − I, L = I − D^{-1/2} W D^{-1/2} and
    T_k the Chebyshev polynomials, K = 3, 16 hidden units, ReLU, dropout 0.3, Adam (lr 0.005),
    weight decay 5e-4 on the first layer's weights, at most 150 epochs: the published settings.

Both stop early on an inner validation split of the training subjects (``validation_fraction``,
stratified by class; the weights of the epoch with the lowest validation loss are kept) and
record the curves in ``history_`` (:func:`plot_training_curves` draws them).

Framework: PyTorch, imported when a model is fitted (``pip install 'fastelm[deep]'``; the core
package never imports this one). PyTorch's default Linux wheels bundle several GB of CUDA
libraries; its CPU wheel (``pip install torch==2.13.0 --index-url
https://download.pytorch.org/whl/cpu``) installed here in 28 s and takes 754 MB, about what JAX
with jaxlib takes (~620 MB), and PyTorch is what BrainNetCNN's and the population GCN's public
re-implementations use. Threads: each fit runs PyTorch on the smallest BLAS/OpenMP limit in
force (threadpoolctl, e.g. ``fastelm._threads.thread_limit``), so the reproduction's one-thread
limit applies to these models as to the others.
Determinism: each fit draws its weights, dropout masks, mini-batches and validation split from
``random_state`` inside ``torch.random.fork_rng`` (the global generator is left as it was).

The package: ``brainnetcnn`` (the connectome CNN), ``gcn`` (the population graph, the Chebyshev
polynomials and the GCN) with ``rfe`` (its ridge RFE), ``_training`` (what the two share: the
lazy PyTorch import, threads, seeding, the validation split, early stopping), ``protocol``
(:func:`deep_models`, :func:`run_abide`), ``outputs`` (tables and plots) and ``reproduce`` (the
command line ``python -m fastelm.experiments.deep``: the options of ``fastelm reproduce bls-fmri``,
whose ``--deep`` runs these models on that reproduction's folds, with ``--deep only`` as default).
"""
from .brainnetcnn import CONNECTOME_KINDS, BrainNetCNNClassifier
from .gcn import PopulationGCNClassifier, chebyshev_polynomials, population_graph
from .outputs import DEEP_MODELS, plot_training_curves, write_abide_outputs
from .protocol import deep_models, run_abide
from .reproduce import main
from .rfe import RidgeRFE

__all__ = ["BrainNetCNNClassifier", "PopulationGCNClassifier", "RidgeRFE", "population_graph",
           "chebyshev_polynomials", "plot_training_curves", "deep_models", "run_abide",
           "write_abide_outputs", "main", "DEEP_MODELS", "CONNECTOME_KINDS"]
