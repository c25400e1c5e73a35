"""Pinned upstream files and their known checksums.

Each file is identified by repository, commit and path; its download URL is
pinned to the commit. Checksums come from the upstream repositories: sha256
where known, else the git blob id (sha1 of ``blob <size>\\0<content>``) that the
pinned commit records.
"""

from __future__ import annotations

from mwz_datasets.sources import Source
from mwz_plugins.errors import InputError

MULTIWOZ_REPO = "budzianowski/multiwoz"
MULTIWOZ_COMMIT = "fe0c8e65cfcd8462bd33c86e35f21addc84ca82b"
DSTC9_REPO = "alexa/alexa-with-dstc9-track1-dataset"
DSTC9_COMMIT = "7ebb4c767b64826c1ac0f8bae409c0fab9cc0ae4"
MWZEVAL_REPO = "Tomiinek/MultiWOZ_Evaluation"
MWZEVAL_COMMIT = "7f19ee01ffd97652bfad5b067fce40704d9c9de2"
_COMMITS = {MULTIWOZ_REPO: MULTIWOZ_COMMIT, DSTC9_REPO: DSTC9_COMMIT, MWZEVAL_REPO: MWZEVAL_COMMIT}


def _f(repo: str, path: str, *, size: int | None, sha256: str | None, git_blob: str | None) -> Source:
    return Source(repo=repo, commit=_COMMITS[repo], path=path, size=size, sha256=sha256, git_blob=git_blob)


FILES: dict[tuple[str, str], Source] = {
    (s.repo, s.path): s
    for s in (
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/README.md",
            size=3280,
            sha256="f816c4e598677ad093ba5930197803e0c3b42fd4232640fd69235682b6c8bca9",
            git_blob="9ce48b5eac34d6c428f7f4e86d807baa1fa93180",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/knowledge.json",
            size=471645,
            sha256="c8490242c23101c4e7c3e3482acd1d6dbf26c788f62c0c87fcaf622ee5360372",
            git_blob="74bc7b13ae25a85f44773285adbe033250b730a5",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/output_schema.json",
            size=1372,
            sha256="77c126e877e8690e6b7ba7b928c0dad0f273031e7adb0e8663f2a08e3376c199",
            git_blob="213648e7bd6cce38e5b0210358fda75579f042de",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/train/labels.json",
            size=None,
            sha256=None,
            git_blob="23edc6fa8a76c4afe606830b175a39807917d828",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/train/logs.json",
            size=None,
            sha256=None,
            git_blob="f5c20a995f1c94bb5a3646b9f6aee0dcc85f5107",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/val/labels.json",
            size=895901,
            sha256="6da9429d56c37ac2b0dc2b97d4bfaeb42df8596f13503719c68a76d6a86ae598",
            git_blob="e85135ee946aad59662365bd879d2861803c5c27",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data/val/logs.json",
            size=None,
            sha256=None,
            git_blob="5d7957e4d879eff5311dee65fbe19ba66f8388dc",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/README.md",
            size=2069,
            sha256="3fc5b6d3b3edd99a4662805b06a3300c53c26759aa006aaba4b02cf1552c0757",
            git_blob="f498e76539cd78059c132cb966065a11d3edf013",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/db.json",
            size=255026,
            sha256="ade7b219010ce931a6823aeea21f5f39d36edd2cd56df7403dae935d2c8c1f2e",
            git_blob="948973fae1a469ffc4b2107711b258dd4fc2f3e1",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/knowledge.json",
            size=1979588,
            sha256="fb0facf7acc6831707e49e4dec39518a4c627f233ab6c13ffc5e3f3fab00e4ab",
            git_blob="5e23a9f6bf816cd217cc44672d44a3864a5a5a5f",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/output_schema.json",
            size=1386,
            sha256="de1c1a2693b34f57ef611d30cc0ab13cb84ca0377778385711512ad9371055ea",
            git_blob="4c47fc6ba14dafba0bb7298d0a4014e0ebc8acfb",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/test/labels.json",
            size=697294,
            sha256="7d0d8f49653ebfed5f2d017d6a0c0e53a31026821120358b6cc2675a635b17fc",
            git_blob="3e18e0ee483708007904614940a787d26e3a7b13",
        ),
        _f(
            "alexa/alexa-with-dstc9-track1-dataset",
            "data_eval/test/logs.json",
            size=None,
            sha256=None,
            git_blob="f97385d65638e11606c27e11c4b6778e94d0a6d7",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.0.zip",
            size=None,
            sha256=None,
            git_blob="4457555aff779b1e8140dca79e59bfed0832877c",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.1.zip",
            size=20241542,
            sha256="8db3f6afe591383b8523b271f07727693e73012ecce47f3ac7987191e09b7523",
            git_blob=None,
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/README.md",
            size=7230,
            sha256="a9b2c9bb4ca61fdf1eb64a3c5d421271b14ffcc45029852fd26c71ca32302c9e",
            git_blob="1e78846af6b9bce251d025e229be66ed21564379",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/dev/dialogues_001.json",
            size=11771811,
            sha256=None,
            git_blob="994fec69745c3dfd469835e90bf5cba2d1c4af47",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/dev/dialogues_002.json",
            size=10708830,
            sha256=None,
            git_blob="90e368c50db6bb8d6fbec2fa396e71396ca5a3f7",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/dialog_acts.json",
            size=60183378,
            sha256=None,
            git_blob="8975b7888b7279387876ac8bce37825f5782ce40",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/schema.json",
            size=18123,
            sha256="ae9e2390f38fb967af64623c2f4f7e0c636fb377ad523b582a03161d3ddbdf68",
            git_blob="73776eb237d964f08dfc825a0239ce6d9856b80f",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/test/dialogues_001.json",
            size=11781808,
            sha256=None,
            git_blob="fd420005cc9dc259892f541b001d9d48608bd38d",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/test/dialogues_002.json",
            size=10771758,
            sha256=None,
            git_blob="8ce97bc17acc3d1105d92d8d936520b8c93892ba",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_001.json",
            size=10678768,
            sha256=None,
            git_blob="1ab08d377750e83493095b0eb1249df81a99ba21",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_002.json",
            size=10779713,
            sha256=None,
            git_blob="d182eae43341a44ebe3807ed61e829d73dc34a84",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_003.json",
            size=9980098,
            sha256=None,
            git_blob="2544e4c90a5eeef4c290fe2cf0c4c4d70c4f69ff",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_004.json",
            size=10267341,
            sha256=None,
            git_blob="ec487da741ebc423770ae2d09c9cb5c70b81bd1f",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_005.json",
            size=10518980,
            sha256=None,
            git_blob="34d733cbc334bb39c79e6f06652b1d1aa997307e",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_006.json",
            size=10567400,
            sha256=None,
            git_blob="8d390b5dac386dd87c927eafaec63699fde304ea",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_007.json",
            size=10362425,
            sha256=None,
            git_blob="ee6a677c78d8416779840e2dd306d668851061b6",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_008.json",
            size=10207271,
            sha256=None,
            git_blob="cf849daab0a6f0caa3f543a6f6d171e443a80dce",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_009.json",
            size=10168917,
            sha256=None,
            git_blob="ee088d84d2c274c6f3fb3e119346bfd3321c986e",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_010.json",
            size=10539061,
            sha256=None,
            git_blob="8b6252a34be01fa9500511dc5cc30121cb1ac7f7",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_011.json",
            size=10326640,
            sha256=None,
            git_blob="c24eb2c071e3d2ab3f12f742eb591a2526d0c19f",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_012.json",
            size=10584880,
            sha256=None,
            git_blob="89937591b044fa964a0430480cd9f91dfc681a6a",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_013.json",
            size=10471034,
            sha256=None,
            git_blob="c39aa0c69fda70278ff37de94f2189f2bb3f9e69",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_014.json",
            size=10260484,
            sha256=None,
            git_blob="d0399d022e916ae79b40df7adb92cb17fe97ad57",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_015.json",
            size=10423185,
            sha256=None,
            git_blob="e1db3d9ab1475ffffd725d1e8326f7b1df2adf38",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_016.json",
            size=10218682,
            sha256=None,
            git_blob="079e9f5881429c398626c8615cb979b67c46329d",
        ),
        _f(
            "budzianowski/multiwoz",
            "data/MultiWOZ_2.2/train/dialogues_017.json",
            size=5020445,
            sha256=None,
            git_blob="2cdad94fbcbf80c21e67cb57d40eece195fe3181",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/attraction_db.json",
            size=35731,
            sha256="2aacc620af4025f1eada5ec83057a866f8e8b72b529f71d2f8bf93bcdd8f8751",
            git_blob="4f5fbc75aea1cb2d41c8da641b8f7baef49f08ad",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/bus_db.json",
            size=748675,
            sha256="4818e735bae20690f6d0d06bb2ae8eec1981c0b680258a970dc01c9073f3fec9",
            git_blob="050d9f184809d69d32d5f2f4996905609b176b55",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/hospital_db.json",
            size=7291,
            sha256="51282ab30346d4e826fbdf6a668d346f4b1e72425190d62048a7c471ffba5020",
            git_blob="82fe62e887d95d78b05c9de5bff3208c55bff8b3",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/hotel_db.json",
            size=18241,
            sha256="7f7d0fa564f6735b6a168a3ab72c7ca6f1180c49fa8a285bd9ebf7dac10e5e45",
            git_blob="438601caef140ed7b6b441365bf09055ae33e0ed",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/police_db.json",
            size=149,
            sha256="d9c2b200fa2dd61b04ce2fe520b0b79dfa68d8b895806cfec6e8a8d3cffa9193",
            git_blob="dbe208f09942f74c89cdabc8510dae457a0d905f",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/restaurant_db.json",
            size=56391,
            sha256="7864b4e36027af0907d6afe9ed962fecd6c6966cd626b8ae9341708a04ea201a",
            git_blob="58ed562b1f87aba62d9e40fa5c909e1ff470a6f2",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/taxi_db.json",
            size=217,
            sha256="6b676ae412ef17a15c24594bec99f61ed6a18b0fbecf6ed89d409baa924b89c1",
            git_blob="60ef8bd4b8f7396b4d7f7c241571c8a507c945d1",
        ),
        _f(
            "budzianowski/multiwoz",
            "db/train_db.json",
            size=748675,
            sha256="4818e735bae20690f6d0d06bb2ae8eec1981c0b680258a970dc01c9073f3fec9",
            git_blob="050d9f184809d69d32d5f2f4996905609b176b55",
        ),
    )
}


# mwzeval's reference files, one per delexicalization style (git blob ids of @7f19ee0).
MWZEVAL_REFERENCE_BLOBS = {
    "augpt": "3a896673ba478cf0ed05d17d4678792da553eea0",
    "damd": "a64dc56e64f9ebe9b06bd88e72ba7795aeb02f02",
    "hdsa": "d20d2c488c5d8f7f141eb249fb1513b624994d21",
    "lava": "a8647458368da555ea6f53fb5ad54e97b22977d4",
    "uniconv": "e8c159effa3bcdeb94df4fa820971bff781c4d3a",
}
for _style, _blob in MWZEVAL_REFERENCE_BLOBS.items():
    _ref = _f(MWZEVAL_REPO, f"mwzeval/data/references/{_style}.json", size=None, sha256=None, git_blob=_blob)
    FILES[(_ref.repo, _ref.path)] = _ref

# The published systems' test outputs that mwzeval ships (predictions/<system>.json at @7f19ee0):
# system -> (size, sha256, git blob id).
MWZEVAL_PREDICTIONS: dict[str, tuple[int, str, str]] = {
    "augpt": (
        2974046,
        "c642e5eeec966871fbf25f9d9dc99f3acca885b5b4b54043af02540742d17165",
        "f4055c1ae86c6ec2b5a292e8c575e9e936a51f0b",
    ),
    "damd": (
        2415309,
        "26ed05b82fb12579e89ab69b833b0442e0e0208dbeb028f25bf16284cd84e455",
        "771adff7aa881af62e1a3078dd719f85bc0024b9",
    ),
    "dots": (
        3065260,
        "59bc49b2b7ec73089c1e541fc03eece1c7d86bf30b471553cbc5f7d9e4253248",
        "1535e0a11a1a49382a411e9eb1de9206d80056e5",
    ),
    "galaxy-e2e": (
        1894910,
        "1719cbe457e11ca55753691688e62c6273f14f5b5d47b5f6806015fc8fa98bfa",
        "5f4174619d0540f8a78a69682eacd9d169b06de1",
    ),
    "galaxy-policy": (
        770127,
        "0eb6dea6830537456ed0cedc53768655c82d4b04a83b7fb43637c3ca245f8206",
        "f58cf1362b4e27b91a83010ba29c281467db3413",
    ),
    "hdno": (
        1277385,
        "a141857c49d3afc0e8bbce340642dba69f67cb5bd2e31428e9998f4f8f3ea3a4",
        "6ebc23b07a16f9f9b53e82d2b138208b0250e5c2",
    ),
    "hdsa": (
        1265234,
        "9c74887b359e16e3e4fa7b726e2f2439c3e9f08b07c6eb216e960dd6526b628d",
        "1d91b8f133e17eb1953a992b411ea30ec452bd21",
    ),
    "labes": (
        2407499,
        "086b4dcf63bfd6cffe629a3d0debd7139da68913b5bc90717d2ddfa1e41732d9",
        "9fae79dd080a74d790ecc146da3d30e80ae65ff3",
    ),
    "lava": (
        1342543,
        "431fdc943fed06b2d00f68ada3ab40ec07a6faad6d7799424654affbe5fdfca8",
        "ce06fc014df7c6ec93db71ee18f409b0d47860cf",
    ),
    "marco": (
        1369463,
        "2015bab238f2c2267935f4d6d49c1e66df4f2d0cab75025ce235391f57bb2ddd",
        "786f60d8277a9609eddb04c8ccb176e1e8ad48b1",
    ),
    "mintl": (
        2643080,
        "0fd0034ef01b0e3605231ee0993e67c752c713de031052d85664b802267a2d8b",
        "c49e9e783c35ae6c553a62ef1a444e716baa0d82",
    ),
    "pptod": (
        3324249,
        "c2609d951f0fd176b70bee6733113048d16748fefd9d2193d54c5df5f69c5a89",
        "5bab779d149dc833df1e789e52faf1b4e98d9d66",
    ),
    "sfn": (
        1372983,
        "a438b919ae09266eb036e5dba6749c494e26bb330c774c8ebad60f708971e101",
        "b1673ec25c088f14aae55b8fcfc543e94e2725ed",
    ),
    "soloist": (
        2693815,
        "2a42b6e408127053407b15635352c3becfa5ae6b68c06ec4bd1757fd2f085a3e",
        "a033b7c9a1898e1db72fcff639b60f14b7240717",
    ),
    "ubar": (
        2652383,
        "957b614c64e5e06e08011fc0da0380ef35eb7de1a842581e45e2f8ce0518ebf8",
        "6540620467323f0963660b746e1f98be6087ba51",
    ),
    "uniconv": (
        2911122,
        "3bb3579970cd8d8e1d41975f9f7e19e26bc0e2a88af27f4126cc99d4a9a942bd",
        "7ff2b8f33dc2833037c3e1fc66fabf6c42a4b062",
    ),
}
for _system, (_size, _sha, _blob) in MWZEVAL_PREDICTIONS.items():
    _pred = _f(MWZEVAL_REPO, f"predictions/{_system}.json", size=_size, sha256=_sha, git_blob=_blob)
    FILES[(_pred.repo, _pred.path)] = _pred


def published_predictions() -> dict[str, Source]:
    """The pinned sources of mwzeval's published predictions, by system name."""
    return {system: source(MWZEVAL_REPO, f"predictions/{system}.json") for system in MWZEVAL_PREDICTIONS}


def source(repo: str, path: str) -> Source:
    """The pinned source of ``path`` in ``repo``."""
    try:
        return FILES[(repo, path)]
    except KeyError:
        raise InputError(f"no pinned source for {repo}/{path}") from None


def by_name(name: str) -> Source:
    """The pinned source written ``owner/repo/path``."""
    owner, repo, path = name.split("/", 2)
    return source(f"{owner}/{repo}", path)


def multiwoz(path: str) -> Source:
    """The pinned source of ``path`` in budzianowski/multiwoz."""
    return source(MULTIWOZ_REPO, path)


def dstc9(path: str) -> Source:
    """The pinned source of ``path`` in the DSTC9 Track 1 repository."""
    return source(DSTC9_REPO, path)
