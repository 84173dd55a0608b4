# rdpkit from Python, notebook style (each "# %%" is a cell; run it whole with
#   python3 examples/python_quickstart.py
# after `python3 -m pip install . --no-build-isolation`, see README "Python").
# %% [markdown]
# ## 1. The DP-SGD question
# Batch 256 of 60,000 examples for 15 epochs at noise multiplier 1.1: what ε at δ = 1e-5?
# One step is a Gaussian on a Poisson sample of rate 256/60000; the run is ⌈15·60000/256⌉ steps.

# %%
import json
import math
import pathlib

import rdpkit

step = rdpkit.PoissonSampledEvent(sampling_probability=256 / 60000,
                                  event=rdpkit.GaussianEvent(noise_multiplier=1.1))
run = rdpkit.SelfComposedEvent(step, count=math.ceil(15 * 60000 / 256))
result = rdpkit.epsilon(run, delta=1e-5)
print(f"epsilon = {result.epsilon:.4f} (accountant {result.accountant})")
rdp = rdpkit.epsilon(run, delta=1e-5, accountant="rdp")  # what Opacus' RDP accountant answers
print(f"RDP alone: epsilon = {rdp.epsilon:.4f} at order {rdp.order:.2f}")

# %% [markdown]
# And the noise for ε = 1: the same run with the noise multiplier left as "?".

# %%
noise = rdpkit.calibrate(
    rdpkit.SelfComposedEvent(rdpkit.PoissonSampledEvent(256 / 60000, rdpkit.GaussianEvent("?")),
                             run.count),
    epsilon=1.0, delta=1e-5)
print(f"noise_multiplier = {noise.value:.4f} gives epsilon = {noise.epsilon:.6f}")

# %% [markdown]
# The privacy curve (ε after k steps), with matplotlib when it is installed.

# %%
try:
    import matplotlib

    matplotlib.use("Agg")
    ax = rdpkit.plot_privacy_curve(run, delta=1e-5, points=20, label="sigma = 1.1")
    ax.figure.savefig("privacy_curve.png", dpi=100)
    print("wrote privacy_curve.png")
except ImportError:
    for steps, point in rdpkit.privacy_curve(run, delta=1e-5, points=8):
        print(f"{steps:6d} steps: epsilon = {point.epsilon:.4f}")

# %% [markdown]
# ## 2. A private model on a shared data set
# examples/spambase_*.csv with its public bounds (examples/spambase.schema.json), the settings of
# examples/spambase.config.json: the same model `rdpkit train` writes for them.

# %%
import pandas as pd  # noqa: E402

examples = pathlib.Path(__file__).resolve().parent
schema = json.loads((examples / "spambase.schema.json").read_text())
config = json.loads((examples / "spambase.config.json").read_text())
train = pd.read_csv(examples / "spambase_train.csv")
test = pd.read_csv(examples / "spambase_test.csv")
names = [f["name"] for f in schema["features"]]

clf = rdpkit.DPGBTClassifier(
    epsilon=config["privacy"]["epsilon"], delta=config["privacy"]["delta"],
    bounds=[(f["min"], f["max"]) for f in schema["features"]], random_state=config["seed"],
    n_estimators=config["n_estimators"], max_depth=config["max_depth"],
    learning_rate=config["learning_rate"], split_method=config["split_method"],
    split_candidates=config["split_candidates"])
clf.fit(train[names], train["label"])
print(f"test accuracy {clf.score(test[names], test['label']):.4f} "
      f"at epsilon_ = {clf.epsilon_:.6f}, delta_ = {clf.delta_}")
# The model's recorded event gives back its ε:
print("re-derived:", rdpkit.epsilon(clf.privacy_event_, clf.delta_).epsilon)
clf.save_model("spambase.model.json")  # the file format of `rdpkit train`
